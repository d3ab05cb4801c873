import StrobeHCI
import StrobeSim
import Testing
import Strobe

@Suite struct TransportSpecTests {
    @Test(arguments: [
        ("hci:0", TransportSpec.hci(device: 0)),
        ("hci:hci3", .hci(device: 3)),
        ("tcp:127.0.0.1:9001", .tcp(host: "127.0.0.1", port: 9001)),
        ("tcp:[::1]:9001", .tcp(host: "::1", port: 9001)),
        ("tcp:localhost:1", .tcp(host: "localhost", port: 1)),
        ("unix:/run/strobe.sock", .unix(path: "/run/strobe.sock")),
        ("unix:@strobe", .unix(path: "@strobe")),
        ("serial:/dev/ttyUSB0", .serial(device: "/dev/ttyUSB0", baudRate: 1_000_000, rtsCts: false)),
        ("serial:/dev/ttyACM0,115200,rtscts", .serial(device: "/dev/ttyACM0", baudRate: 115_200, rtsCts: true)),
        ("serial:/dev/ttyS1,rtscts", .serial(device: "/dev/ttyS1", baudRate: 1_000_000, rtsCts: true)),
        ("replay:Captures/x.btsnoop", .replay(file: "Captures/x.btsnoop")),
        ("replay:x.btsnoop,speed=10", .replay(file: "x.btsnoop", speed: .factor(10))),
        ("replay:x.btsnoop,speed=0.5", .replay(file: "x.btsnoop", speed: .factor(0.5))),
        ("replay:a,b.btsnoop,speed=max", .replay(file: "a,b.btsnoop", speed: .maximum)),
        ("sim", .sim(scenario: nil)),
        ("sim:worlds/studio.json", .sim(scenario: "worlds/studio.json")),
    ])
    func parses(text: String, expected: TransportSpec) throws {
        let spec = try TransportSpec(parsing: text)
        #expect(spec == expected)
        #expect(try TransportSpec(parsing: spec.description) == spec)
    }

    @Test(arguments: ["", "hci", "hci:", "hci:-1", "hci:x", "tcp:host", "tcp::9001", "tcp:h:0", "tcp:h:70000",
                      "unix:", "serial:", "serial:/dev/x,fast", "replay:", "replay:x,speed=0", "replay:x,speed=-1", "replay:x,speed=fast", "replay:,speed=2", "bogus:1", "sim:", "simulator"])
    func rejects(text: String) {
        #expect(throws: TransportError.self) { try TransportSpec(parsing: text) }
    }

    @Test func aMissingScenarioFileIsAOneLineError() {
        #expect(throws: TransportError.self) {
            _ = try TransportSpec.sim(scenario: "/nonexistent/world.json").openIncludingSimulatedWorld()
        }
    }

    /// The app library does not carry the simulated world; asking it for one says where it is.
    @Test func theAppLibraryPointsToTheSimulatorProduct() {
        #expect(throws: TransportError.cannotOpen(
            endpoint: "sim", reason: "the simulated world is in the StrobeSim product (TransportSpec.openIncludingSimulatedWorld())")) {
            _ = try TransportSpec.sim(scenario: nil).open()
        }
    }

    /// Read coalescing holds a byte stream's reader; the kinds that read packets (or nothing)
    /// refuse it instead of ignoring it, before they open anything.
    @Test(arguments: ["hci:0", "replay:/nonexistent/x.btsnoop", "sim"])
    func readCoalescingIsRefusedWhereThereIsNoByteStream(text: String) throws {
        let spec = try TransportSpec(parsing: text)
        let holding = try #require(ReadCoalescing(microseconds: 250))
        let refusal = TransportError.cannotOpen(
            endpoint: text, reason: "read coalescing applies to tcp, unix and serial transports, not this one")
        #expect(throws: refusal) { _ = try spec.openIncludingSimulatedWorld(readCoalescing: holding) }
        #expect(throws: refusal) { _ = try spec.open(readCoalescing: holding) }
    }
}
