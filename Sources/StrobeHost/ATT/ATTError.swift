/// A request answered by an Error Response (Vol 3, Part F, 3.4.1.1).
public struct ATTError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The request that failed.
    public var requestOpcode: ATTOpcode
    /// The handle that caused the error, 0x0000 when none did.
    public var handle: AttributeHandle
    public var code: ATTErrorCode

    public init(requestOpcode: ATTOpcode, handle: AttributeHandle, code: ATTErrorCode) {
        self.requestOpcode = requestOpcode
        self.handle = handle
        self.code = code
    }

    package init(_ response: ATTErrorResponse) {
        self.init(requestOpcode: response.requestOpcode, handle: response.handle, code: response.error)
    }

    public var description: String {
        "\(requestOpcode) on handle \(handle) failed: \(code)"
    }
}
