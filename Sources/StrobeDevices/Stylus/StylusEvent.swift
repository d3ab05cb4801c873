import StrobeHCI

/// What the stylus decoder reports, per sample, in order: the sample itself, then (if its buttons
/// differ from the previous sample's) the raw change, then one mapped action per side button that
/// went down.
public enum StylusEvent: Sendable, Hashable {
    /// A sample, stamped on the host clock: batches are paced by the pen's own sample intervals and
    /// anchored to the notification's arrival, so a stamp is never after arrival and never goes back.
    case sample(StylusSample, timestamp: HostTime)
    /// The sample just reported holds other buttons than the previous one: `from` the old set, `to`
    /// the new.
    case buttonsChanged(from: StylusButtons, to: StylusButtons, timestamp: HostTime)
    /// A side button went down and the button map gives it an action other than `.none`.
    case sideButtonAction(StylusAction, button: StylusSideButton, timestamp: HostTime)
}
