/// A dotted numeric firmware version as found in the Firmware Revision String characteristic
/// (`2A26`), e.g. `1.4.0`. Versions compare component by component, missing ones counting as 0,
/// so `1.2` == `1.2.0` < `1.10`.
public struct FirmwareVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The numeric components, most significant first (`1.4.0` is `[1, 4, 0]`); never empty.
    public let components: [UInt32]

    /// At least one component.
    public init?(components: [UInt32]) {
        guard !components.isEmpty else { return nil }
        self.components = components
    }

    /// The three-component version `major.minor.patch`.
    public init(major: UInt32, minor: UInt32, patch: UInt32) {
        components = [major, minor, patch]
    }

    /// Parses `1.4.0` (an optional leading `v` is accepted); `nil` for anything else.
    public init?(_ text: some StringProtocol) {
        var body = Substring(text)
        if body.first == "v" || body.first == "V" { body = body.dropFirst() }
        var parsed: [UInt32] = []
        for part in body.split(separator: ".", omittingEmptySubsequences: false) {
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let value = UInt32(part) else { return nil }
            parsed.append(value)
        }
        self.init(components: parsed)
    }

    /// Decodes the characteristic value: UTF-8, with the NUL padding and white space that devices
    /// often leave around it removed.
    package init(decoding bytes: UnsafeRawBufferPointer) throws(FirmwareVersionError) {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .notUTF8(length: bytes.count) }
        let trimmed = text.trimmingNulAndWhitespace()
        guard let version = FirmwareVersion(trimmed) else { throw .unparsable(trimmed) }
        self = version
    }

    /// Compares component by component, a missing trailing component counting as 0.
    public static func < (lhs: FirmwareVersion, rhs: FirmwareVersion) -> Bool {
        for index in 0..<max(lhs.components.count, rhs.components.count) {
            let left = index < lhs.components.count ? lhs.components[index] : 0
            let right = index < rhs.components.count ? rhs.components[index] : 0
            if left != right { return left < right }
        }
        return false
    }

    /// Equal when no component differs, missing trailing components counting as 0 (`1.2` == `1.2.0`).
    public static func == (lhs: FirmwareVersion, rhs: FirmwareVersion) -> Bool {
        !(lhs < rhs) && !(rhs < lhs)
    }

    /// Hashes the components without their trailing zeros, so that equal versions hash alike.
    public func hash(into hasher: inout Hasher) {
        // Trailing zeros do not change the version, so they must not change the hash.
        var significant = components[...]
        while significant.count > 1, significant.last == 0 { significant = significant.dropLast() }
        hasher.combine(Array(significant))
    }

    /// The components joined with dots, as stored (`1.2` stays `1.2`, without a `v` prefix).
    public var description: String { components.map(String.init).joined(separator: ".") }
}

/// What was wrong with a firmware revision string.
package enum FirmwareVersionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The value, `length` bytes long, is not valid UTF-8.
    case notUTF8(length: Int)
    /// The text, trimmed, that is not a dotted numeric version.
    case unparsable(String)

    /// A one-line message that names the problem and the offending value.
    package var description: String {
        switch self {
        case .notUTF8(let length): "firmware revision (\(length) bytes) is not UTF-8"
        case .unparsable(let text): "firmware revision \"\(text)\" is not a dotted numeric version"
        }
    }
}

extension String {
    fileprivate func trimmingNulAndWhitespace() -> String {
        let isPadding: (Character) -> Bool = { $0 == "\0" || $0.isWhitespace }
        guard let start = firstIndex(where: { !isPadding($0) }),
              let end = lastIndex(where: { !isPadding($0) }) else { return "" }
        return String(self[start...end])
    }
}
