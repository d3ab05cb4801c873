import StrobeHCI
import StrobeHost
import StrobeBase
import Synchronization

/// A bearer and GATT client wired through a fake channel to a test server, on a virtual clock.
struct ATTTestHarness {
    let clock = VirtualClock()
    let channel: FakeATTChannel
    let server: TestGATTServer
    let bearer: ATTBearer
    let client: GATTClient

    init(
        clientMTU: Int = ATTMTU.maximum, serverMTU: Int = ATTMTU.maximum, channelPayload: Int = 1024,
        timeout: Duration = .seconds(30), build: (TestGATTServer) -> Void = { _ in }
    ) {
        channel = FakeATTChannel(maximumPayload: channelPayload)
        server = TestGATTServer(rxMTU: serverMTU)
        build(server)
        bearer = ATTBearer(
            channel: channel,
            configuration: .init(preferredMTU: clientMTU, transactionTimeout: timeout),
            clock: clock)
        client = GATTClient(bearer: bearer)
        let server = server, bearer = bearer
        channel.connect { pdu in server.receive(pdu) }
        server.connect { pdu in
            pdu.withUnsafeBytes { bearer.receive($0, at: HostTime(nanoseconds: 42)) }
        }
    }

    /// Feeds raw bytes to the bearer as if the peer had sent them.
    func inject(_ pdu: [UInt8], at time: HostTime = HostTime(nanoseconds: 7)) {
        pdu.withUnsafeBytes { bearer.receive($0, at: time) }
    }
}

/// Records the values a handler receives (copied out of the borrowed view).
final class RecordingValueHandler: ATTValueHandler {
    struct Value: Equatable {
        var handle: AttributeHandle
        var value: [UInt8]
        var kind: ATTValueKind
        var time: HostTime
    }

    private let values = Lock<[Value]>([])
    var received: [Value] { values.withLock { $0 } }

    func attributeValueReceived(_ value: UnsafeRawBufferPointer, handle: AttributeHandle, kind: ATTValueKind, at time: HostTime) {
        let copy = Value(handle: handle, value: Array(value), kind: kind, time: time)
        values.withLock { $0.append(copy) }
    }
}

/// Cooperative wait for a state the code under test reaches on another task; bounded, so a
/// condition that never holds fails the test instead of hanging it.
func eventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<100_000 {
        if condition() { return true }
        await Task.yield()
    }
    return condition()
}

extension AttributeHandle {
    var littleEndianBytes: [UInt8] { [UInt8(rawValue & 0xFF), UInt8(rawValue >> 8)] }
}
