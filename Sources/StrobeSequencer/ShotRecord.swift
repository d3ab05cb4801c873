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
    /// The flash's Bluetooth device address.
    public var address: String
    /// When its FLASH command was issued.
    public var commandIssued: UInt64
    /// The FLASH left from the trigger's own thread, armed ahead of it, rather than through the
    /// flash's command queue.
    public var armed: Bool
    /// When its acknowledgement of the FLASH arrived; nil when none came before the policy's
    /// deadline (or the command failed).
    public var acknowledged: UInt64?
    /// When its OFF command was issued, after the capture (sent whether or not it lit).
    public var offIssued: UInt64?
    /// When it acknowledged the OFF; nil when it did not.
    public var offAcknowledged: UInt64?
    /// nil when the flash acknowledged; otherwise why not.
    public var failure: String?
    /// nil when the flash acknowledged the OFF; otherwise why not (it may still be lit, until
    /// its own safety timeout).
    public var offFailure: String?
}

/// The timing record of one shot: from the trigger to the light going out.
public struct ShotRecord: Sendable, Hashable, Codable {
    /// The shot's number, counting from 1 over the sequencer's life (busy shots included).
    public var shot: Int
    /// How the shot ended.
    public var outcome: ShotOutcome
    /// When the trigger's bytes were read (or `shoot` was called), in host nanoseconds.
    public var triggerReceived: UInt64
    /// Each connected flash's part, in the manager's order; empty for `busy`, `cancelled` and
    /// `noFlash`.
    public var flashes: [FlashTiming]
    /// When the camera was asked to capture; nil when it was not (`aborted`, `busy`, `cancelled`,
    /// `noFlash`).
    public var captureStart: UInt64?
    /// When the capture returned or failed; nil when there was none.
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
