import StrobeHCI

/// How a shot ended. Every shot has one; none ends silently.
public enum ShotOutcome: String, Sendable, Hashable, Codable, CaseIterable {
    /// Every selected flash acknowledged before the deadline; the camera captured.
    case captured
    /// A flash did not acknowledge in time (or failed) and the policy said to shoot anyway.
    case capturedWithoutFlash
    /// A flash did not acknowledge in time (or failed) and the policy said to abort.
    case aborted
    /// No flash was connected.
    case noFlash
    /// The camera failed.
    case cameraFailed
    /// The shot was cancelled.
    case cancelled
    /// A trigger came while the previous shot was still running: this one was not taken.
    case busy
}

/// One flash's part in a shot. Times are monotonic host nanoseconds (the clock transports stamp
/// received bytes with).
public struct FlashTiming: Sendable, Hashable, Codable {
    public var address: String
    public var commandIssued: UInt64
    /// The FLASH left from the trigger's own thread, armed ahead of it, rather than through the
    /// flash's command queue.
    public var armed: Bool
    public var acknowledged: UInt64?
    public var offIssued: UInt64?
    public var offAcknowledged: UInt64?
    /// nil when the flash acknowledged; otherwise why not.
    public var failure: String?
}

/// The timing record of one shot: from the trigger to the light going out.
public struct ShotRecord: Sendable, Hashable, Codable {
    public var shot: Int
    public var outcome: ShotOutcome
    public var triggerReceived: UInt64
    public var flashes: [FlashTiming]
    public var captureStart: UInt64?
    public var captureEnd: UInt64?
    /// When the sequencer has modelling lights: their dim and restore.
    public var modellingLights: ModellingLightsTiming?

    /// Trigger to the last flash's acknowledgement, nanoseconds.
    public var triggerToLit: UInt64? {
        let acks = flashes.compactMap(\.acknowledged)
        guard acks.count == flashes.count, let last = acks.max() else { return nil }
        return last - triggerReceived
    }

    /// The spread of the flash commands' issue times: how far apart the flashes were told to fire.
    public var skew: UInt64 {
        let issued = flashes.map(\.commandIssued)
        guard let first = issued.min(), let last = issued.max() else { return 0 }
        return last - first
    }
}
