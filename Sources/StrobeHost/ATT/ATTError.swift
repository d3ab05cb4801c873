/// A request answered by an Error Response (Vol 3, Part F, 3.4.1.1).
public struct ATTError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The request that failed.
    public var requestOpcode: ATTOpcode
    /// The handle that caused the error, 0x0000 when none did.
    public var handle: AttributeHandle
    /// The Error Code the server returned, e.g. 0x02 Read Not Permitted.
    public var code: ATTErrorCode

    /// Creates the error for `requestOpcode` answered with `code`; `handle` is 0x0000 when the
    /// error names no attribute.
    public init(requestOpcode: ATTOpcode, handle: AttributeHandle, code: ATTErrorCode) {
        self.requestOpcode = requestOpcode
        self.handle = handle
        self.code = code
    }

    package init(_ response: ATTErrorResponse) {
        self.init(requestOpcode: response.requestOpcode, handle: response.handle, code: response.error)
    }

    /// E.g. `Read Request (0x0A) on handle 0x0012 failed: Read Not Permitted (0x02)`.
    public var description: String {
        "\(requestOpcode) on handle \(handle) failed: \(code)"
    }
}
