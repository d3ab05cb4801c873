import ArgumentParser
import Foundation
import Strobe

/// `strobe advertise`: legacy connectable advertising with a name, for a fixed time. Handy to
/// check a second adapter, or the scanner of another stack, without a peripheral at hand.
struct AdvertiseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "advertise", abstract: "Advertise a name (legacy advertising) for a while.")

    @OptionGroup var global: GlobalOptions

    @Option(help: "The complete local name to advertise.")
    var name: String

    @Option(help: "How long to advertise, in seconds.")
    var duration: Double = 10

    @Option(help: "Advertising interval in milliseconds (20 ... 10240).")
    var intervalMs: Double = 100

    func validate() throws {
        guard duration > 0, duration <= 86_400 else { throw ValidationError("--duration must be between 0 and 86400 seconds") }
        guard (20...10_240).contains(intervalMs) else { throw ValidationError("--interval-ms must be between 20 and 10240") }
        guard advertisingData() != nil else {
            throw ValidationError("the name '\(name)' does not fit in 31 bytes of advertising data (at most 26 bytes of UTF-8)")
        }
    }

    /// Flags (LE General Discoverable, BR/EDR not supported) and the complete local name; `nil`
    /// when they do not fit in 31 bytes.
    func advertisingData() -> AdvertisingData? {
        let data = AdvertisingData(structures: [
            .flags([.leGeneralDiscoverable, .brEdrNotSupported]),
            .localName(name, complete: true),
        ])
        return data.encoded.count <= legacyAdvertisingDataMaximumLength ? data : nil
    }

    func run() async throws {
        guard let data = advertisingData() else { throw ValidationError("name too long") }
        let session = try await ControllerSession.open(global)
        let advertiser = LEAdvertiser(controller: session.controller)
        do {
            try await advertiser.start(data: data, interval: .microseconds(Int64(intervalMs * 1000)))
            print("advertising \"\(name)\" as \(session.info.address) for \(duration) s")
            try await session.controller.sleep(for: .milliseconds(Int64(duration * 1000)))
            try await advertiser.stop()
        } catch {
            try? session.close()
            throw error
        }
        try session.close()
    }
}
