/// Keeps the last valid battery level of one device and counts the readings that were not.
/// A malformed reading leaves the last good level in place.
public struct BatteryLevelMonitor: Sendable, Equatable {
    public struct Counters: Sendable, Equatable {
        public var readings: UInt64 = 0
        public var malformed: UInt64 = 0
        public init() {}
    }

    public private(set) var level: BatteryLevel?
    public private(set) var lastError: BatteryLevelError?
    public private(set) var counters = Counters()

    public init() {}

    /// Feeds one read or notified value; returns the new level, or the error and keeps the old one.
    @discardableResult
    public mutating func update(_ bytes: UnsafeRawBufferPointer) -> Result<BatteryLevel, BatteryLevelError> {
        counters.readings += 1
        do {
            let level = try BatteryLevel(decoding: bytes)
            self.level = level
            return .success(level)
        } catch {
            counters.malformed += 1
            lastError = error
            return .failure(error)
        }
    }
}
