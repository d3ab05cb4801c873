/// The oldest grip firmware this host accepts (configurable; `1.2.0` by default). A grip that
/// runs older firmware is refused with an error naming both versions.
public struct GripFirmwareRequirement: Sendable, Hashable {
    /// Version `1.2.0`, the minimum when none is configured.
    public static let defaultMinimum = FirmwareVersion(major: 1, minor: 2, patch: 0)

    /// The oldest firmware version accepted; a version equal to it passes.
    public var minimum: FirmwareVersion

    /// Accepts firmware `minimum` and newer (`1.2.0` and newer by default).
    public init(minimum: FirmwareVersion = defaultMinimum) { self.minimum = minimum }

    /// Throws `GripError.firmwareTooOld` when `version` is older than `minimum`.
    public func check(_ version: FirmwareVersion) throws(GripError) {
        guard version >= minimum else { throw .firmwareTooOld(found: version, minimum: minimum) }
    }

    /// Checks the Firmware Revision characteristic's value.
    public func check(revision bytes: UnsafeRawBufferPointer) throws(GripError) {
        let version: FirmwareVersion
        do {
            version = try FirmwareVersion(decoding: bytes)
        } catch {
            throw .firmwareUnreadable(reason: error.description)
        }
        try check(version)
    }
}
