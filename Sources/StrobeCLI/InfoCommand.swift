import ArgumentParser
import Foundation
import Strobe

/// `strobe info`: open the controller, run the init sequence and show what it reported.
struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info", abstract: "Open the controller and show its address, version and buffers.")

    @OptionGroup var global: GlobalOptions

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() async throws {
        let session = try await ControllerSession.open(global)
        let report = ControllerReport(transport: try global.transportSpec().description, info: session.info)
        try session.close()
        if json {
            try JSONOutput.print(report)
        } else {
            print(report.text)
        }
    }
}

/// What `strobe info` prints; the JSON keys are part of the command's contract.
struct ControllerReport: Encodable {
    var transport: String
    var address: String
    var hciVersion: String
    var hciRevision: UInt16
    var lmpSubversion: UInt16
    var manufacturer: UInt16
    var leACLLength: Int
    var leACLCount: Int
    var sharesBREDRBuffers: Bool
    var extendedScanning: Bool
    var extendedCreateConnection: Bool
    var leFeatures: String

    init(transport: String, info: ControllerInfo) {
        self.transport = transport
        address = info.address.description
        hciVersion = CoreVersion.name(info.version.hciVersion)
        hciRevision = info.version.hciSubversion
        lmpSubversion = info.version.lmpSubversion
        manufacturer = info.manufacturer
        leACLLength = info.leACLDataPacketLength
        leACLCount = info.totalNumLEACLDataPackets
        sharesBREDRBuffers = info.usesBREDRBuffers
        extendedScanning = info.supportsExtendedScanning
        extendedCreateConnection = info.supportsExtendedCreateConnection
        leFeatures = "0x" + String(info.leFeatures.rawValue, radix: 16)
    }

    var text: String {
        """
        transport      \(transport)
        address        \(address)
        HCI version    \(hciVersion) (revision 0x\(String(hciRevision, radix: 16)))
        manufacturer   0x\(String(manufacturer, radix: 16)) (LMP subversion 0x\(String(lmpSubversion, radix: 16)))
        LE ACL buffers \(leACLCount) x \(leACLLength) bytes\(sharesBREDRBuffers ? " (shared with BR/EDR)" : "")
        LE features    \(leFeatures)
        extended scan  \(extendedScanning ? "yes" : "no"), extended connect \(extendedCreateConnection ? "yes" : "no")
        """
    }
}

/// Core Specification version names (Assigned Numbers, HCI/LMP versions).
enum CoreVersion {
    static func name(_ version: UInt8) -> String {
        let names = ["1.0b", "1.1", "1.2", "2.0", "2.1", "3.0", "4.0", "4.1", "4.2", "5.0", "5.1", "5.2", "5.3", "5.4", "6.0"]
        return Int(version) < names.count ? names[Int(version)] : "0x" + String(version, radix: 16)
    }
}
