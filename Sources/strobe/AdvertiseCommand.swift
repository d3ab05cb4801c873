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

    /// Flags (LE General Discoverable, BR/EDR not supported) and the complete local name.
    func advertisingData() -> HCILESetAdvertisingData? {
        let data = AdvertisingData(structures: [
            .flags([.leGeneralDiscoverable, .brEdrNotSupported]),
            .localName(name, complete: true),
        ])
        return HCILESetAdvertisingData(data: data.encoded)
    }

    func run() async throws {
        guard let data = advertisingData() else { throw ValidationError("name too long") }
        let session = try await ControllerSession.open(global)
        let controller = session.controller
        // Extended advertising commands carrying legacy PDUs when the controller has them: every
        // scanner hears legacy PDUs, and some controllers report only those to extended scanners.
        let extended = session.info.supportedCommands.supportsExtendedAdvertising
        do {
            let units = UInt16(intervalMs / 0.625)
            if extended {
                guard let extendedData = HCILESetExtendedAdvertisingData(data: data.data) else { throw ValidationError("name too long") }
                try await controller.send(HCILESetExtendedAdvertisingParameters(intervalMin: UInt32(units), intervalMax: UInt32(units)))
                try await controller.send(extendedData)
                try await controller.send(HCILESetExtendedAdvertisingEnable(enable: true))
            } else {
                try await controller.send(HCILESetAdvertisingParameters(intervalMin: units, intervalMax: units))
                try await controller.send(data)
                try await controller.send(HCILESetAdvertisingEnable(enable: true))
            }
            print("advertising \"\(name)\" as \(session.info.address) for \(duration) s")
            try await controller.sleep(for: .milliseconds(Int64(duration * 1000)))
            if extended {
                try await controller.send(HCILESetExtendedAdvertisingEnable(enable: false))
            } else {
                try await controller.send(HCILESetAdvertisingEnable(enable: false))
            }
        } catch {
            try? session.close()
            throw error
        }
        try session.close()
    }
}
