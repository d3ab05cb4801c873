/// Keeps the last valid battery level of one device and counts the readings that were not.
/// A malformed reading leaves the last good level in place.
package struct BatteryLevelMonitor: Sendable, Equatable {
    package struct Counters: Sendable, Equatable {
        package var readings: UInt64 = 0
        package var malformed: UInt64 = 0
        package init() {}
    }

    package private(set) var level: BatteryLevel?
    package private(set) var lastError: BatteryLevelError?
    package private(set) var counters = Counters()

    package init() {}

    /// Feeds one read or notified value; returns the new level, or the error and keeps the old one.
    @discardableResult
    package mutating func update(_ bytes: UnsafeRawBufferPointer) -> Result<BatteryLevel, BatteryLevelError> {
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
