import Strobe
import StrobeSim

/// The getting-started program of the README and of the DocC catalog, line for line between the
/// markers (`GettingStartedTests` holds both copies to it). `print` is the caller's, so that the
/// test reads what the program printed.
func gettingStarted(print: (String) -> Void) async throws {
    // BEGIN getting-started
    let host = try await BluetoothHost(transport: SimTransport())  // a real controller: TransportSpec.hci(device: 0).open()
    let peer = try await host.connect(name: "Strobe-Test")
    let battery = try await peer.read(.batteryLevel)
    print("battery \(battery[0]) %")
    var values = 0
    for await _ in try await peer.subscribe("8D1E0004-3B5A-4C6E-9F00-5A7B0BE0C0DE").prefix(100) { values += 1 }
    print("\(values) notifications")
    let pairing = try await peer.pair()
    print("paired: \(pairing.securityLevel)")
    try await peer.disconnect()
    host.close()
    // END getting-started
}
