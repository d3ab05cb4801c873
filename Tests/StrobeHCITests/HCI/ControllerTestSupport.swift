import StrobeBase
import Synchronization
import StrobeHCI

/// Values gathered from callbacks on the reader thread.
final class Collector<Element: Sendable>: Sendable {
    private let storage = Lock<[Element]>([])
    func append(_ element: Element) { storage.withLock { $0.append(element) } }
    var values: [Element] { storage.withLock { $0 } }
}

/// Whether `condition` comes to hold for the controller's control state while other tasks run
/// (a caller parked on a command or an ACL buffer, say): checked between yields, no clock.
func eventually(_ controller: HCIController, _ condition: (HCIController) -> Bool) async -> Bool {
    for _ in 0..<100_000 {
        if condition(controller) { return true }
        await Task.yield()
    }
    return condition(controller)
}

/// A controller opened against the scripted transport; the responder is removed afterwards so
/// that the test answers every further command itself.
func openController(
    profile: ControllerProfile = ControllerProfile(), clock: VirtualClock = VirtualClock(),
    configuration: HCIController.Configuration = HCIController.Configuration(), keepResponder: Bool = false
) async throws -> (HCIController, ScriptedTransport) {
    let transport = ScriptedTransport(responder: profile.responder)
    let controller = HCIController(transport: transport, clock: clock, configuration: configuration)
    try await controller.open()
    if !keepResponder { transport.setResponder(nil) }
    return (controller, transport)
}

/// An ACL handler that records what it receives.
final class RecordingACLHandler: HCIACLHandler {
    struct Packet: Sendable, Equatable {
        var handle: ConnectionHandle
        var boundary: ACLPacketBoundary
        var payload: [UInt8]
        var time: HostTime
        /// The address of the context the packet came with (0 for none).
        var context = 0
    }
    let packets = Collector<Packet>()
    /// The address `receiveContext` gives (0 for none); the test never dereferences it.
    let contextAddress: Int
    init(contextAddress: Int = 0) { self.contextAddress = contextAddress }
    var receiveContext: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: contextAddress) }
    /// "acl" for each packet and "end" for each batch end, in order.
    let events = Collector<String>()
    func controllerDidReceiveACL(_ header: ACLHeader, payload: UnsafeRawBufferPointer, at time: HostTime,
                                 context: UnsafeMutableRawPointer?) {
        packets.append(Packet(handle: header.connectionHandle, boundary: header.boundary, payload: Array(payload), time: time,
                              context: Int(bitPattern: context)))
        events.append("acl")
    }
    func controllerDidFinishBatch() {
        events.append("end")
    }
}

extension Task where Failure == any Error {
    /// The task's value; cancelling the waiter (a test's time limit) cancels the task, so that a
    /// regression fails the test instead of hanging it.
    var outcome: Success {
        get async throws {
            try await withTaskCancellationHandler { try await value } onCancel: { cancel() }
        }
    }
}
