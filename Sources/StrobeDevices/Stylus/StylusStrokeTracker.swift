import StrobeHCI

/// Where a sample stands in a stroke: the first with the tip down, the ones after it, and the
/// first with the tip up again (which ends the stroke). Samples while hovering are `.hover`.
public enum StylusStrokePhase: Sendable, Hashable {
    case began
    case continues
    case ended
    case hover
}

/// What a stylus consumer receives: samples with their stroke phase, side-button actions.
public enum StylusDrawingEvent: Sendable, Hashable {
    case sample(StylusSample, phase: StylusStrokePhase, timestamp: HostTime)
    case sideButtonAction(StylusAction, button: StylusSideButton, timestamp: HostTime)
}

/// Turns decoded samples into stroke phases from the tip-contact bit.
struct StylusStrokeTracker: Sendable {
    private(set) var isDrawing = false

    mutating func handle(_ event: StylusEvent, _ body: (StylusDrawingEvent) -> Void) {
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
