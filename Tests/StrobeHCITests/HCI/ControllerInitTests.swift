import Testing
import StrobeHCI

@Suite(.timeLimit(.minutes(1))) struct ControllerInitTests {
    @Test func initSequenceUsesBufferSizeV2WhenSupported() async throws {
        var profile = ControllerProfile()
        profile.supportedCommands.insert(.leReadBufferSizeV2)
        let (controller, transport) = try await openController(profile: profile)
        #expect(transport.sent.compactMap(opcode(of:)) == [
            .reset, .readLocalVersionInformation, .readBDAddr, .readLocalSupportedCommands,
            .readLocalSupportedFeatures, .leReadLocalSupportedFeatures, .setEventMask, .leSetEventMask,
            .leReadBufferSizeV2,
        ])
        #expect(transport.sent[6] == HCISetEventMask(mask: HCIEventMask.default).packet)
        #expect(transport.sent[7] == HCILESetEventMask(mask: HCIEventMask.leDefault).packet)
        let info = try #require(controller.info)
        #expect(info.address == BluetoothAddress("00:11:22:33:44:55"))
        #expect(info.version.hciVersion == 0x0C && info.version.hciSubversion == 0x1234)
        #expect(info.manufacturer == 0x0002)
        #expect(info.lmpFeatures.contains(.leSupportedController))
        #expect(info.leFeatures.contains(.dataPacketLengthExtension))
        #expect(info.supports(.leReadBufferSizeV2) && !info.supportsExtendedScanning)
        #expect(info.leACLDataPacketLength == 251 && info.totalNumLEACLDataPackets == 12 && !info.usesBREDRBuffers)
        #expect(info.leBufferSize.isoDataPacketLength == 0)
        #expect(controller.aclCredits == 12)
    }

    @Test func initSequenceFallsBackToBufferSizeV1() async throws {
        let (controller, transport) = try await openController()
        #expect(transport.sent.compactMap(opcode(of:)).last == .leReadBufferSizeV1)
        #expect(!transport.sent.compactMap(opcode(of:)).contains(.leReadBufferSizeV2))
        let info = try #require(controller.info)
        #expect(info.leACLDataPacketLength == 27 && info.totalNumLEACLDataPackets == 8)
        #expect(info.leBufferSize.isoDataPacketLength == nil)
        #expect(controller.aclCredits == 8)
    }

    @Test func leBufferSizeZeroUsesTheBREDRBuffers() async throws {
        var profile = ControllerProfile()
        profile.leBufferV1 = (0, 0)
        let (controller, transport) = try await openController(profile: profile)
        #expect(Array(transport.sent.compactMap(opcode(of:)).suffix(2)) == [.leReadBufferSizeV1, .readBufferSize])
        let info = try #require(controller.info)
        #expect(info.leACLDataPacketLength == 1021 && info.totalNumLEACLDataPackets == 6 && info.usesBREDRBuffers)
        #expect(controller.aclCredits == 6)
    }

    @Test func core40ControllerGetsOnlyTheCore40LEEvents() async throws {
        var profile = ControllerProfile()
        profile.version[0] = 0x06
        let (_, transport) = try await openController(profile: profile)
        #expect(transport.sent[7] == HCILESetEventMask(mask: 0x1F).packet)
    }

    @Test func failedResetFailsOpenAndClosesTheTransport() async throws {
        let transport = ScriptedTransport { packet in
            [commandComplete(opcode(of: packet) ?? .nop, status: HCIStatus.hardwareFailure.rawValue)]
        }
        let controller = HCIController(transport: transport, clock: VirtualClock())
        await #expect(throws: HCIError.commandFailed(.reset, .hardwareFailure)) { try await controller.open() }
        #expect(transport.isClosed)
        await #expect(throws: HCIError.closed(nil)) { try await controller.send(HCIReset()) }
    }

    @Test func transportThatCannotStartFailsOpen() async {
        let transport = ScriptedTransport(startError: .bluetoothUnsupported)
        let controller = HCIController(transport: transport, clock: VirtualClock())
        await #expect(throws: TransportError.bluetoothUnsupported) { try await controller.open() }
        await #expect(throws: HCIError.closed(.bluetoothUnsupported)) { try await controller.send(HCIReset()) }
    }

    @Test func commandsBeforeOpenAndSecondOpenAreRefused() async throws {
        let transport = ScriptedTransport(responder: ControllerProfile().responder)
        let controller = HCIController(transport: transport, clock: VirtualClock())
        await #expect(throws: HCIError.notOpen) { try await controller.send(HCIReset()) }
        try await controller.open()
        await #expect(throws: HCIError.alreadyOpen) { try await controller.open() }
    }
}
