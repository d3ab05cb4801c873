import StrobeHCI
import Testing

import StrobeDevices

@Suite struct StylusStrokeTrackerTests {
    private func sample(_ buttons: StylusButtons) -> StylusEvent {
        .sample(StylusSample(deltaMicroseconds: 1000, rawPressure: 100, buttons: buttons), timestamp: HostTime(nanoseconds: 0))
    }

    @Test func tipContactMarksBeganContinuesEndedAndHover() {
        var tracker = StylusStrokeTracker()
        var phases: [StylusStrokePhase] = []
        let sequence: [StylusButtons] = [[.hovering], [.tipContact], [.tipContact], [.tipContact, .sideButton1], [], [.tipContact], []]
        for buttons in sequence {
            tracker.handle(sample(buttons)) { event in
                if case .sample(_, let phase, _) = event { phases.append(phase) }
            }
        }
        #expect(phases == [.hover, .began, .continues, .continues, .ended, .began, .ended])
        #expect(!tracker.isDrawing)
    }

    @Test func sideButtonActionsPassThroughAndButtonChangesDoNot() {
        var tracker = StylusStrokeTracker()
        var events: [StylusDrawingEvent] = []
        let time = HostTime(nanoseconds: 5)
        tracker.handle(.buttonsChanged(from: [], to: [.sideButton1], timestamp: time)) { events.append($0) }
        tracker.handle(.sideButtonAction(.undo, button: .side1, timestamp: time)) { events.append($0) }
        #expect(events == [.sideButtonAction(.undo, button: .side1, timestamp: time)])
    }
}
