import StrobeHCI

/// Where a sample stands in a stroke: the first with the tip down, the ones after it, and the
/// first with the tip up again (which ends the stroke). Samples while hovering are `.hover`.
public enum StylusStrokePhase: Sendable, Hashable {
    /// The tip touched: the first sample of a stroke.
    case began
    /// The tip still touches: a sample inside the stroke.
    case continues
    /// The first sample with the tip up again: the stroke is over.
    case ended
    /// The tip is up and no stroke is going on (hovering or farther away).
    case hover
}

/// What a stylus consumer receives: samples with their stroke phase, side-button actions.
public enum StylusDrawingEvent: Sendable, Hashable {
    /// A sample with its place in a stroke and its host-clock timestamp.
    case sample(StylusSample, phase: StylusStrokePhase, timestamp: HostTime)
    /// A side button went down and the button map gives it this action (never `.none`).
    case sideButtonAction(StylusAction, button: StylusSideButton, timestamp: HostTime)
}

/// Turns decoded samples into stroke phases from the tip-contact bit.
package struct StylusStrokeTracker: Sendable {
    package private(set) var isDrawing = false

    package init() {}

    package mutating func handle(_ event: StylusEvent, _ body: (StylusDrawingEvent) -> Void) {
        switch event {
        case .sample(let sample, let timestamp):
            let touching = sample.buttons.contains(.tipContact)
            let phase: StylusStrokePhase = switch (isDrawing, touching) {
            case (false, true): .began
            case (true, true): .continues
            case (true, false): .ended
            case (false, false): .hover
            }
            isDrawing = touching
            body(.sample(sample, phase: phase, timestamp: timestamp))
        case .sideButtonAction(let action, let button, let timestamp):
            body(.sideButtonAction(action, button: button, timestamp: timestamp))
        case .buttonsChanged:
            break
        }
    }
}
