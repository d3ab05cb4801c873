import Foundation
import StrobeBase
import Synchronization
import Testing

import StrobeCapture
import StrobeHCI
import StrobeSim

/// Every HCI command the stack sends, from its one description (`walkParameters`), through the
/// encoder, the decoder, a capture and the simulated controller.
@Suite struct HCICommandDescriptionTests {
    static let key: [UInt8] = Array(0xA0...0xAF)
    static let peer = BluetoothAddress("C4:5E:00:00:00:09")!
    static let connection = LEConnectionParameters(intervalMin: 0x0018, intervalMax: 0x0028, maxLatency: 0x0002,
                                                   supervisionTimeout: 0x01F4, minCELength: 0x0003, maxCELength: 0x0004)

    /// One command of each kind, with values a field mix-up would change.
    static let examples: [any HCICommand] = [
        HCIReset(), HCISetEventMask(mask: 0x3DBF_F807_FFFB_FFFF), HCIReadLocalVersionInformation(), HCIReadBDAddr(),
        HCIReadLocalSupportedCommands(), HCIReadLocalSupportedFeatures(), HCIReadBufferSize(),
        HCILESetEventMask(mask: 0x0000_0000_0007_FFFF), HCILEReadLocalSupportedFeatures(), HCILEReadBufferSizeV1(),
        HCILEReadBufferSizeV2(),
        HCILESetAdvertisingParameters(intervalMin: 0x00A0, intervalMax: 0x00B0, advertisingType: .scannableUndirected,
                                      ownAddressType: .random, peerAddressType: .random, peerAddress: peer, channelMap: 0x05,
                                      filterPolicy: 0x01),
        HCILESetAdvertisingData(data: [0x02, 0x01, 0x06, 0x05, 0x09, 0x4E, 0x6F, 0x76, 0x61])!,
        HCILESetScanResponseData(data: [0x03, 0x03, 0x0F, 0x18])!,
        HCILESetAdvertisingEnable(enable: true), HCILESetRandomAddress(address: peer),
        HCILESetExtendedAdvertisingParameters(advertisingHandle: 1, properties: [.connectable, .scannable], intervalMin: 0x0100A0,
                                              intervalMax: 0x0200B0, channelMap: 0x06, ownAddressType: .random,
                                              peerAddressType: .random, peerAddress: peer, filterPolicy: 0x02, txPower: -4,
                                              primaryPHY: 0x03, secondaryMaxSkip: 1, secondaryPHY: 0x02, advertisingSID: 5,
                                              scanRequestNotification: true),
        HCILESetExtendedAdvertisingData(advertisingHandle: 1, data: Array(0x10...0x30))!,
        HCILESetExtendedScanResponseData(advertisingHandle: 2, data: [0x03, 0x03, 0x0F, 0x18])!,
        HCILESetExtendedAdvertisingEnable(enable: true, advertisingHandle: 3),
        HCILESetAdvertisingSetRandomAddress(advertisingHandle: 2, address: peer),
        HCILESetScanParameters(scanType: .active, scanInterval: 0x0060, scanWindow: 0x0030, ownAddressType: .random,
                               scanningFilterPolicy: 0x01),
        HCILESetScanEnable(enable: true, filterDuplicates: true),
        HCILESetExtendedScanParameters(ownAddressType: .random, scanningFilterPolicy: 0x01,
                                       le1M: .init(scanType: .active, scanInterval: 0x0060, scanWindow: 0x0030),
                                       leCoded: .init(scanType: .passive, scanInterval: 0x0120, scanWindow: 0x0090)),
        HCILESetExtendedScanEnable(enable: true, filterDuplicates: 2, duration: 0x0064, period: 0x0003),
        HCILECreateConnection(scanInterval: 0x0060, scanWindow: 0x0030, initiatorFilterPolicy: 0, peerAddressType: .random,
                              peerAddress: peer, ownAddressType: .random, connection: connection),
        HCILEExtendedCreateConnection(ownAddressType: .random, peerAddressType: .random, peerAddress: peer,
                                      le1M: .init(scanInterval: 0x0060, scanWindow: 0x0030, connection: connection),
                                      leCoded: .init(scanInterval: 0x0120, scanWindow: 0x0090, connection: connection)),
        HCILECreateConnectionCancel(), HCIDisconnect(connectionHandle: 0x0041, reason: .authenticationFailure),
        HCILEConnectionUpdate(connectionHandle: 0x0042, connection: connection),
        HCILERemoteConnectionParameterRequestReply(connectionHandle: 0x0043, connection: connection),
        HCILERemoteConnectionParameterRequestNegativeReply(connectionHandle: 0x0044, reason: .unacceptableConnectionParameters),
        HCILESetDataLength(connectionHandle: 0x0045, txOctets: 251, txTime: 2120),
        HCILESetPHY(connectionHandle: 0x0046, allPHYs: 0x01, txPHYs: [.le2M], rxPHYs: [.le1M, .le2M], phyOptions: 0x0001),
        HCILEReadPHY(connectionHandle: 0x0047), HCILEReadRemoteFeatures(connectionHandle: 0x0048),
        HCIReadRemoteVersionInformation(connectionHandle: 0x0049),
        HCILEEnableEncryption(connectionHandle: 0x004A, random: 0xA0A1_A2A3_A4A5_A6A7, encryptedDiversifier: 0xB1B2, longTermKey: key),
        HCILELongTermKeyRequestReply(connectionHandle: 0x004B, longTermKey: key),
        HCILELongTermKeyRequestNegativeReply(connectionHandle: 0x004C),
    ]

    /// The return parameters of each command that returns more than Status, with values a field
    /// mix-up would change.
    static let returnExamples: [(command: any HCICommand.Type, returned: any HCIParameters)] = [
        (HCIReadLocalVersionInformation.self, LocalVersionInformation(hciVersion: 0x0D, hciSubversion: 0x1234, lmpVersion: 0x0C,
                                                                       companyIdentifier: 0x005F, lmpSubversion: 0x5678)),
        (HCIReadBDAddr.self, HCIReadBDAddr.ReturnParameters(bdAddr: peer)),
        (HCIReadLocalSupportedCommands.self, HCIReadLocalSupportedCommands.ReturnParameters(
            supportedCommands: HCISupportedCommands(octets: Array(0..<64)))),
        (HCIReadLocalSupportedFeatures.self, HCIReadLocalSupportedFeatures.ReturnParameters(lmpFeatures: [.brEdrNotSupported, .encryption])),
        (HCIReadBufferSize.self, HCIReadBufferSize.ReturnParameters(aclDataPacketLength: 1021, synchronousDataPacketLength: 64,
                                                                     totalNumACLDataPackets: 8, totalNumSynchronousDataPackets: 2)),
        (HCILEReadLocalSupportedFeatures.self, HCILEReadLocalSupportedFeatures.ReturnParameters(leFeatures: [.encryption, .llPrivacy])),
        (HCILEReadBufferSizeV1.self, HCILEReadBufferSizeV1.ReturnParameters(
            LEBufferSize(leACLDataPacketLength: 251, totalNumLEACLDataPackets: 12))),
        (HCILEReadBufferSizeV2.self, HCILEReadBufferSizeV2.ReturnParameters(
            LEBufferSize(leACLDataPacketLength: 251, totalNumLEACLDataPackets: 12, isoDataPacketLength: 310, totalNumISODataPackets: 4))),
        (HCILESetExtendedAdvertisingParameters.self, HCILESetExtendedAdvertisingParameters.ReturnParameters(selectedTxPower: -7)),
        (HCILERemoteConnectionParameterRequestReply.self, HCIConnectionHandleReturnParameters(connectionHandle: 0x0043)),
        (HCILERemoteConnectionParameterRequestNegativeReply.self, HCIConnectionHandleReturnParameters(connectionHandle: 0x0044)),
        (HCILESetDataLength.self, HCIConnectionHandleReturnParameters(connectionHandle: 0x0045)),
        (HCILEReadPHY.self, HCILEReadPHY.ReturnParameters(connectionHandle: 0x0047, txPHY: .le2M, rxPHY: .leCoded)),
        (HCILELongTermKeyRequestReply.self, HCIConnectionHandleReturnParameters(connectionHandle: 0x004B)),
        (HCILELongTermKeyRequestNegativeReply.self, HCIConnectionHandleReturnParameters(connectionHandle: 0x004C)),
    ]

    /// What the simulated controller does not implement (it has no extended advertising,
    /// scanning or initiating, data length or PHY features), so answers Unknown HCI Command.
    static let notSimulated: Set<HCIOpcode> = [
        HCILEReadBufferSizeV2.opcode, HCILESetExtendedAdvertisingParameters.opcode, HCILESetExtendedAdvertisingData.opcode,
        HCILESetExtendedScanResponseData.opcode, HCILESetExtendedAdvertisingEnable.opcode,
        HCILESetAdvertisingSetRandomAddress.opcode, HCILESetExtendedScanParameters.opcode, HCILESetExtendedScanEnable.opcode,
        HCILEExtendedCreateConnection.opcode, HCILESetDataLength.opcode, HCILESetPHY.opcode, HCILEReadPHY.opcode,
        HCILEReadRemoteFeatures.opcode, HCIReadRemoteVersionInformation.opcode,
    ]

    @Test func theExamplesAreTheCatalog() {
        let opcodes = Self.examples.map { type(of: $0).opcode.rawValue }
        #expect(Set(opcodes).count == opcodes.count, "one example per command")
        #expect(Set(opcodes) == Set(HCICommandCatalog.commands.map { $0.opcode.rawValue }))
    }

    @Test func eachCommandDecodesToWhatWasEncoded() throws {
        for example in Self.examples { try Self.roundTrip(example) }
    }

    static func roundTrip<C: HCICommand>(_ command: C) throws {
        let packet = command.packet
        #expect(packet[0] == HCIPacketType.command.rawValue)
        #expect(UInt16(packet[1]) | UInt16(packet[2]) << 8 == C.opcode.rawValue)
        #expect(Int(packet[3]) == packet.count - 4)
        let parameters = Array(packet[4...])
        let decoded = try parameters.withUnsafeBytes { bytes throws(HCIError) in try C(decodingParameters: bytes) }
        #expect(decoded == command, "\(C.opcode)")
        // One byte short, or one left over, is malformed, not read past or ignored.
        guard !parameters.isEmpty else { return }
        #expect(throws: HCIError.self) { _ = try Array(parameters.dropLast()).withUnsafeBytes { bytes throws(HCIError) in try C(decodingParameters: bytes) } }
        #expect(throws: HCIError.self) { _ = try (parameters + [0]).withUnsafeBytes { bytes throws(HCIError) in try C(decodingParameters: bytes) } }
    }

    @Test func everyCommandThatReturnsMoreThanStatusHasAReturnExample() {
        let returning = HCICommandCatalog.commands.filter { !Self.returnsStatusOnly($0) }.map { $0.opcode.rawValue }
        #expect(Set(returning) == Set(Self.returnExamples.map { $0.command.opcode.rawValue }))
        #expect(returning.count == Self.returnExamples.count)
        // A command answered by Command Status returns nothing more: its outcome is an event.
        #expect(HCICommandCatalog.commands.filter { $0.completion == .commandStatus && !Self.returnsStatusOnly($0) }.isEmpty)
    }

    static func returnsStatusOnly<C: HCICommand>(_: C.Type) -> Bool { C.ReturnParameters.self == HCINoReturnParameters.self }

    @Test func eachReturnDecodesToWhatWasEncoded() throws {
        for (command, returned) in Self.returnExamples { try Self.roundTripReturn(command, returned) }
    }

    static func roundTripReturn<C: HCICommand>(_: C.Type, _ returned: any HCIParameters) throws {
        let value = try #require(returned as? C.ReturnParameters, "\(C.opcode)")
        let bytes = value.encodedParameters
        let decoded = try bytes.withUnsafeBytes { raw throws(HCIError) in try C.ReturnParameters(decoding: raw, packet: "test") }
        #expect(decoded == value, "\(C.opcode)")
        #expect(throws: HCIError.self, "\(C.opcode)") {
            _ = try Array(bytes.dropLast()).withUnsafeBytes { raw throws(HCIError) in try C.ReturnParameters(decoding: raw, packet: "test") }
        }
    }

    /// Command Complete in a capture shows Status and each return parameter under the name its
    /// description gives, in order.
    @Test func aCaptureShowsEachCommandCompleteByItsReturnFields() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hci-returns-\(UUID().uuidString).btsnoop").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try BtsnoopWriter(path: path)
        let at = BtsnoopTimestamp(unixMicroseconds: 1_700_000_000_000_000)
        for (command, returned) in Self.returnExamples {
            let event = HCIEvent.commandComplete(CommandCompleteEvent(numHCICommandPackets: 1, opcode: command.opcode,
                                                                      returnParameters: [0x00] + returned.encodedParameters))
            try writer.write(.event, direction: .controllerToHost, payload: event.packet, at: at)
        }
        try writer.close()
        let decoder = try CaptureRecordDecoder(path: path)
        for (command, returned) in Self.returnExamples {
            let record = try #require(try decoder.next())
            let layer = try #require(record.layers.last)
            let names = layer.fields.map(\.name)
            #expect(Array(names.suffix(from: names.firstIndex(of: "Status") ?? names.endIndex)) == ["Status"] + Self.fieldNames(returned),
                    "\(command.opcode): \(names)")
            #expect(!names.contains { $0 == "returnParameters" || $0 == "malformed" || $0 == "appended" }, "\(command.opcode)")
        }
    }

    static func fieldNames(_ parameters: any HCIParameters) -> [String] {
        var copy = parameters
        var walker = HCIFieldNames()
        copy.walkParameters(&walker)
        return walker.names
    }

    /// Each command in a capture shows its fields under the names its description gives, in
    /// order, and never a key's bytes.
    @Test func aCaptureShowsEachCommandByItsFields() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hci-commands-\(UUID().uuidString).btsnoop").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try BtsnoopWriter(path: path)
        let at = BtsnoopTimestamp(unixMicroseconds: 1_700_000_000_000_000)
        for example in Self.examples {
            try writer.write(.command, direction: .hostToController, payload: Array(example.packet.dropFirst()), at: at)
        }
        // A Long Term Key Request Reply one byte short: malformed, and its bytes not shown.
        try writer.write(.command, direction: .hostToController,
                         payload: Array(HCILELongTermKeyRequestReply(connectionHandle: 0x40, longTermKey: Self.key).packet.dropFirst().dropLast()),
                         at: at)
        try writer.close()
        let decoder = try CaptureRecordDecoder(path: path)
        let keyText = Self.key.map { String(format: "%02x", $0) }.joined()
        for example in Self.examples {
            let record = try #require(try decoder.next())
            let layer = try #require(record.layers.last)
            let opcode = type(of: example).opcode
            #expect(record.hciOpcode == opcode.rawValue)
            #expect(layer.fields.map(\.name) == Self.fieldNames(example), "\(opcode)")
            #expect(!layer.fields.contains { $0.name == "parameters" || $0.name == "malformed" }, "\(opcode)")
            #expect(!record.text.lowercased().contains(keyText), "\(opcode)")
        }
        let short = try #require(try decoder.next())
        let layer = try #require(short.layers.last)
        #expect(layer.fields.map(\.name) == ["malformed"])
        #expect(!short.text.lowercased().contains(keyText.prefix(8)))
    }

    static func fieldNames<C: HCICommand>(_ command: C) -> [String] {
        var copy = command
        var walker = HCIFieldNames()
        copy.walkParameters(&walker)
        return walker.names
    }

    /// The simulated controller takes each command it implements through the same description
    /// (none counted malformed), and says Unknown HCI Command to the others.
    @Test func theSimulatedControllerTakesEachCommandByItsDescription() async throws {
        try await VirtualTimeDriver.run(Self.theSimulatedControllerTakesEachCommandByItsDescription)
    }

    static func theSimulatedControllerTakesEachCommandByItsDescription(_ clock: VirtualClock) async throws {
        let world = SimWorld(scenario: SimScenario(devices: []), clock: clock)
        let controller = world.makeHostController()
        let sink = AnswerSink()
        try controller.start(sink)
        for example in Self.examples {
            let opcode = type(of: example).opcode
            try example.packet.withUnsafeBytes { try controller.send($0) }
            await controller.flush()
            let status = try #require(sink.answers.withLock { $0[opcode] }, "\(opcode) unanswered")
            if Self.notSimulated.contains(opcode) {
                #expect(status == .unknownHCICommand, "\(opcode)")
            } else {
                // Its own rules may refuse it (a random address while advertising): not its parameters.
                #expect(status != .unknownHCICommand, "\(opcode)")
                #expect(world.air.counters.malformedCommands == 0, "\(opcode): \(status)")
            }
        }
        // Its Command Complete return parameters fit each command's description, whole.
        #expect(sink.returnsNotFitting.withLock { $0 }.isEmpty)
        for example in Self.examples where !Self.notSimulated.contains(type(of: example).opcode) {
            let opcode = type(of: example).opcode
            #expect(type(of: example).completion == .commandStatus || sink.returnsFitting.withLock { $0.contains(opcode) }, "\(opcode)")
        }
        // One byte short: Invalid HCI Command Parameters, counted.
        var short = Array(HCIDisconnect(connectionHandle: 0x40).packet.dropLast())
        short[3] -= 1
        try short.withUnsafeBytes { try controller.send($0) }
        await controller.flush()
        #expect(sink.answers.withLock { $0[.disconnect] } == .invalidHCICommandParameters)
        #expect(world.air.counters.malformedCommands == 1)
        controller.close()
    }

    /// The status of each command's Command Complete or Command Status.
    final class AnswerSink: HCIPacketSink {
        let answers = Lock<[HCIOpcode: HCIStatus]>([:])
        /// Commands whose Command Complete returned what their description says (no byte short,
        /// none left over), and those whose did not.
        let returnsFitting = Lock<Set<HCIOpcode>>([])
        let returnsNotFitting = Lock<[HCIOpcode]>([])

        static func fits<C: HCICommand>(_: C.Type, _ bytes: [UInt8]) -> Bool {
            (try? bytes.withUnsafeBytes { raw throws(HCIError) in try C.ReturnParameters(decoding: raw, packet: "test") }) != nil
        }
        func transportDidReceive(_ type: HCIPacketType, payload: UnsafeRawBufferPointer, at time: HostTime) {
            guard type == .event, let event = try? HCIEvent(packet: payload) else { return }
            switch event {
            case .commandStatus(let status): answers.withLock { $0[status.opcode] = status.status }
            case .commandComplete(let complete):
                let status = complete.returnParameters.first.map(HCIStatus.init(rawValue:)) ?? .success
                answers.withLock { $0[complete.opcode] = status }
                guard let command = HCICommandCatalog.command(opcode: complete.opcode.rawValue) else { return }
                let returned = Array(complete.returnParameters.dropFirst())
                if Self.fits(command, returned) {
                    returnsFitting.withLock { _ = $0.insert(complete.opcode) }
                } else if status.isSuccess || !returned.isEmpty {
                    // A refused command may return its Status alone.
                    returnsNotFitting.withLock { $0.append(complete.opcode) }
                }
            default: break
            }
        }
        func transportDidFinishBatch() {}
        func transportDidClose(_ error: TransportError?) {}
    }
}

/// The names a walk passes, as a capture should show them.
struct HCIFieldNames: HCIParameterWalker {
    typealias Failure = Never
    var names: [String] = []
    mutating func field<Value: HCIFieldValue>(_ name: String, _ value: inout Value) { names.append(name) }
    mutating func uint24(_ name: String, _ value: inout UInt32) { names.append(name) }
    mutating func key(_ name: String, _ value: inout [UInt8]) { names.append(name) }
    mutating func data(_ name: String, _ value: inout [UInt8], maximum: Int?, padded: Bool) { names += ["\(name)_Length", name] }
    mutating func constant<Value: HCIFieldValue & Equatable>(_ name: String, _ value: Value) { names.append(name) }
    mutating func rest(_ name: String, _ value: inout [UInt8]) { names.append(name) }
    mutating func list<Element: HCIParameters>(_ countName: String, _ elements: inout [Element]) {
        names.append(countName)
        for index in elements.indices {
            var element = elements[index]
            var inner = HCIFieldNames()
            element.walkParameters(&inner)
            names += inner.names.map { "\($0)[\(index)]" }
        }
    }
}
