/// The oldest grip firmware this host accepts (configurable; `1.2.0` by default). A grip that
/// runs older firmware is refused with an error naming both versions.
public struct GripFirmwareRequirement: Sendable, Hashable {
    public static let defaultMinimum = FirmwareVersion(major: 1, minor: 2, patch: 0)

    public var minimum: FirmwareVersion

    public init(minimum: FirmwareVersion = defaultMinimum) { self.minimum = minimum }

    public func check(_ version: FirmwareVersion) throws(GripFirmwareError) {
        guard version >= minimum else { throw .tooOld(found: version, minimum: minimum) }
    }

    /// Checks the Firmware Revision characteristic's value.
    public func check(revision bytes: UnsafeRawBufferPointer) throws(GripFirmwareError) {
        let version: FirmwareVersion
        do {
            version = try FirmwareVersion(decoding: bytes)
        } catch {
            throw .unreadable(error)
        }
        try check(version)
    }
}

public enum GripFirmwareError: Error, Sendable, Hashable, CustomStringConvertible {
    case tooOld(found: FirmwareVersion, minimum: FirmwareVersion)
    case unreadable(FirmwareVersionError)

    public var description: String {
        switch self {
        case .tooOld(let found, let minimum):
            "grip firmware \(found) is older than the minimum \(minimum) this host requires; update the grip"
        case .unreadable(let error): "grip firmware version unreadable: \(error)"
        }
    }
}
