/// The oldest grip firmware this host accepts (configurable; `1.2.0` by default). A grip that
/// runs older firmware is refused with an error naming both versions.
public struct GripFirmwareRequirement: Sendable, Hashable {
    /// Version `1.2.0`, the minimum when none is configured.
    public static let defaultMinimum = FirmwareVersion(major: 1, minor: 2, patch: 0)

    /// The oldest firmware version accepted; a version equal to it passes.
    public var minimum: FirmwareVersion

    /// Accepts firmware `minimum` and newer (`1.2.0` and newer by default).
    public init(minimum: FirmwareVersion = defaultMinimum) { self.minimum = minimum }

    /// Throws `GripFirmwareError.tooOld` when `version` is older than `minimum`.
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

/// Why a grip's firmware was refused.
public enum GripFirmwareError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The grip runs `found`, older than the `minimum` this host requires.
    case tooOld(found: FirmwareVersion, minimum: FirmwareVersion)
    /// The Firmware Revision String value is not UTF-8 or not a dotted numeric version.
    case unreadable(FirmwareVersionError)

    /// A one-line message; for `tooOld` it names both versions and asks for the grip to be updated.
    public var description: String {
        switch self {
        case .tooOld(let found, let minimum):
            "grip firmware \(found) is older than the minimum \(minimum) this host requires; update the grip"
        case .unreadable(let error): "grip firmware version unreadable: \(error)"
        }
    }
}
