/// A decoded HCI event. Events the stack does not know are passed through whole, never
/// treated as errors.
package enum HCIEvent: Sendable, Hashable {
    case commandComplete(CommandCompleteEvent)
    case commandStatus(CommandStatusEvent)
    case disconnectionComplete(DisconnectionCompleteEvent)
    case numberOfCompletedPackets([CompletedPackets])
    case readRemoteVersionInformationComplete(ReadRemoteVersionInformationCompleteEvent)
    /// A hardware failure the controller detected; the code is vendor-specific.
    case hardwareError(code: UInt8)
    /// LE Connection Complete or LE Enhanced Connection Complete [v1]/[v2].
    case leConnectionComplete(LEConnectionCompleteEvent)
    case leAdvertisingReport([LEAdvertisingReport])
    case leExtendedAdvertisingReport([LEExtendedAdvertisingReport])
    case leConnectionUpdateComplete(LEConnectionUpdateCompleteEvent)
    case leRemoteConnectionParameterRequest(LERemoteConnectionParameterRequestEvent)
    case leReadRemoteFeaturesComplete(LEReadRemoteFeaturesCompleteEvent)
    case leDataLengthChange(LEDataLengthChangeEvent)
    case lePHYUpdateComplete(LEPHYUpdateCompleteEvent)
    /// Encryption Change [v1]/[v2], and Encryption Key Refresh Complete (as `enabled`).
    case encryptionChange(EncryptionChangeEvent)
    case leLongTermKeyRequest(LELongTermKeyRequestEvent)
    /// An event code the stack does not decode, with its parameters.
    case unknown(code: UInt8, parameters: [UInt8])
    /// An LE Meta subevent the stack does not decode, with the parameters after the subevent code.
    case unknownLEMeta(subevent: UInt8, parameters: [UInt8])
}

extension HCIEvent {
    /// Splits an event packet (event code, parameter length, parameters; no H4 type byte) and
    /// checks that the length byte matches what arrived.
    package static func split(_ packet: UnsafeRawBufferPointer) throws(HCIError) -> (code: UInt8, parameters: UnsafeRawBufferPointer) {
        var r = HCIFieldReader(packet, packet: "HCI event")
        let code = try r.u8("Event_Code")
        let length = Int(try r.u8("Parameter_Total_Length"))
        guard r.remaining == length else {
            throw HCIError.malformed(
                packet: HCIEventCode.name(code),
                detail: "Parameter_Total_Length is \(length) but \(r.remaining) bytes follow")
        }
        return (code, r.rest())
    }

    /// Decodes an event packet (event code, parameter length, parameters).
    package init(packet: UnsafeRawBufferPointer) throws(HCIError) {
        let (code, parameters) = try Self.split(packet)
        try self.init(code: code, parameters: parameters)
    }

    /// Decodes an event packet held in an array (tests, captures).
    package init(packet: [UInt8]) throws(HCIError) {
        let result: Result<HCIEvent, HCIError> = packet.withUnsafeBytes { bytes in
            do throws(HCIError) { return .success(try HCIEvent(packet: bytes)) } catch { return .failure(error) }
        }
        self = try result.get()
    }

    /// Decodes an event from its code and parameters.
    package init(code: UInt8, parameters: UnsafeRawBufferPointer) throws(HCIError) {
        var r = HCIFieldReader(parameters, packet: HCIEventCode.name(code))
        switch code {
        case HCIEventCode.commandComplete:
            self = .commandComplete(CommandCompleteEvent(
                numHCICommandPackets: try r.u8("Num_HCI_Command_Packets"),
                opcode: HCIOpcode(rawValue: try r.u16("Command_Opcode")),
                returnParameters: Array(r.rest())))
        case HCIEventCode.commandStatus:
            self = .commandStatus(CommandStatusEvent(
                status: HCIStatus(rawValue: try r.u8("Status")),
                numHCICommandPackets: try r.u8("Num_HCI_Command_Packets"),
                opcode: HCIOpcode(rawValue: try r.u16("Command_Opcode"))))
        case HCIEventCode.disconnectionComplete:
            self = .disconnectionComplete(DisconnectionCompleteEvent(
                status: HCIStatus(rawValue: try r.u8("Status")),
                connectionHandle: try r.connectionHandle(),
                reason: HCIStatus(rawValue: try r.u8("Reason"))))
        case HCIEventCode.numberOfCompletedPackets:
            var entries: [CompletedPackets] = []
            try Self.forEachCompletedPackets(parameters) { entries.append($0) }
            self = .numberOfCompletedPackets(entries)
        case HCIEventCode.readRemoteVersionInformationComplete:
            self = .readRemoteVersionInformationComplete(ReadRemoteVersionInformationCompleteEvent(
                status: HCIStatus(rawValue: try r.u8("Status")),
                connectionHandle: try r.connectionHandle(),
                version: try r.u8("Version"),
                companyIdentifier: try r.u16("Company_Identifier"),
                subversion: try r.u16("Subversion")))
        case HCIEventCode.hardwareError:
            self = .hardwareError(code: try r.u8("Hardware_Code"))
        case HCIEventCode.encryptionChange, HCIEventCode.encryptionChangeV2:
            let status = HCIStatus(rawValue: try r.u8("Status"))
            let handle = try r.connectionHandle()
            let enabled = try r.u8("Encryption_Enabled")
            let keySize = code == HCIEventCode.encryptionChangeV2 ? try r.u8("Encryption_Key_Size") : nil
            self = .encryptionChange(EncryptionChangeEvent(
                status: status, connectionHandle: handle, enabled: enabled != 0, keySize: keySize, isKeyRefresh: false))
        case HCIEventCode.encryptionKeyRefreshComplete:
            self = .encryptionChange(EncryptionChangeEvent(
                status: HCIStatus(rawValue: try r.u8("Status")), connectionHandle: try r.connectionHandle(),
                enabled: true, keySize: nil, isKeyRefresh: true))
        case HCIEventCode.leMeta:
            let subevent = try r.u8("Subevent_Code")
            try self.init(leSubevent: subevent, parameters: r.rest())
        default:
            self = .unknown(code: code, parameters: Array(parameters))
        }
    }

    /// Decodes an LE Meta subevent from the parameters after the subevent code.
    init(leSubevent subevent: UInt8, parameters: UnsafeRawBufferPointer) throws(HCIError) {
        var r = HCIFieldReader(parameters, packet: LEMetaSubevent.name(subevent))
        switch subevent {
        case LEMetaSubevent.connectionComplete,
             LEMetaSubevent.enhancedConnectionCompleteV1,
             LEMetaSubevent.enhancedConnectionCompleteV2:
            let enhanced = subevent != LEMetaSubevent.connectionComplete
            let status = HCIStatus(rawValue: try r.u8("Status"))
            let handle = try r.connectionHandle()
            let roleValue = try r.u8("Role")
            guard let role = LERole(rawValue: roleValue) else {
                throw r.malformed("Role is \(hex(roleValue)), neither central (0x00) nor peripheral (0x01)")
            }
            let peerAddressType = LEAddressType(rawValue: try r.u8("Peer_Address_Type"))
            let peerAddress = try r.address("Peer_Address")
            let localRPA = enhanced ? try r.address("Local_Resolvable_Private_Address") : nil
            let peerRPA = enhanced ? try r.address("Peer_Resolvable_Private_Address") : nil
            var event = LEConnectionCompleteEvent(
                subevent: subevent, status: status, connectionHandle: handle, role: role,
                peerAddressType: peerAddressType, peerAddress: peerAddress,
                localResolvablePrivateAddress: localRPA, peerResolvablePrivateAddress: peerRPA,
                connectionInterval: try r.u16("Connection_Interval"),
                peripheralLatency: try r.u16("Peripheral_Latency"),
                supervisionTimeout: try r.u16("Supervision_Timeout"),
                centralClockAccuracy: try r.u8("Central_Clock_Accuracy"))
            if subevent == LEMetaSubevent.enhancedConnectionCompleteV2 {
                event.advertisingHandle = try r.u8("Advertising_Handle")
                event.syncHandle = try r.u16("Sync_Handle")
            }
            self = .leConnectionComplete(event)
        case LEMetaSubevent.advertisingReport:
            self = .leAdvertisingReport(try LEAdvertisingReport.decodeReports(parameters))
        case LEMetaSubevent.extendedAdvertisingReport:
            self = .leExtendedAdvertisingReport(try LEExtendedAdvertisingReport.decodeReports(parameters))
        case LEMetaSubevent.connectionUpdateComplete:
            self = .leConnectionUpdateComplete(LEConnectionUpdateCompleteEvent(
                status: HCIStatus(rawValue: try r.u8("Status")),
                connectionHandle: try r.connectionHandle(),
                connectionInterval: try r.u16("Connection_Interval"),
                peripheralLatency: try r.u16("Peripheral_Latency"),
                supervisionTimeout: try r.u16("Supervision_Timeout")))
        case LEMetaSubevent.remoteConnectionParameterRequest:
            self = .leRemoteConnectionParameterRequest(LERemoteConnectionParameterRequestEvent(
                connectionHandle: try r.connectionHandle(),
                intervalMin: try r.u16("Interval_Min"),
                intervalMax: try r.u16("Interval_Max"),
                maxLatency: try r.u16("Max_Latency"),
                supervisionTimeout: try r.u16("Timeout")))
        case LEMetaSubevent.readRemoteFeaturesComplete:
            self = .leReadRemoteFeaturesComplete(LEReadRemoteFeaturesCompleteEvent(
                status: HCIStatus(rawValue: try r.u8("Status")),
                connectionHandle: try r.connectionHandle(),
                features: LEFeatures(rawValue: try r.u64("LE_Features"))))
        case LEMetaSubevent.longTermKeyRequest:
            self = .leLongTermKeyRequest(LELongTermKeyRequestEvent(
                connectionHandle: try r.connectionHandle(),
                random: try r.u64("Random_Number"),
                encryptedDiversifier: try r.u16("Encrypted_Diversifier")))
        case LEMetaSubevent.dataLengthChange:
            self = .leDataLengthChange(LEDataLengthChangeEvent(
                connectionHandle: try r.connectionHandle(),
                maxTxOctets: try r.u16("Max_TX_Octets"),
                maxTxTime: try r.u16("Max_TX_Time"),
                maxRxOctets: try r.u16("Max_RX_Octets"),
                maxRxTime: try r.u16("Max_RX_Time")))
        case LEMetaSubevent.phyUpdateComplete:
            self = .lePHYUpdateComplete(LEPHYUpdateCompleteEvent(
                status: HCIStatus(rawValue: try r.u8("Status")),
                connectionHandle: try r.connectionHandle(),
                txPHY: LEPHY(rawValue: try r.u8("TX_PHY")),
                rxPHY: LEPHY(rawValue: try r.u8("RX_PHY"))))
        default:
            self = .unknownLEMeta(subevent: subevent, parameters: Array(parameters))
        }
    }

    /// Walks the entries of Number Of Completed Packets in place (the ACL credit path must not
    /// allocate). The whole event is checked before the first entry is handed out.
    package static func forEachCompletedPackets(
        _ parameters: UnsafeRawBufferPointer, _ body: (CompletedPackets) -> Void
    ) throws(HCIError) {
        var r = HCIFieldReader(parameters, packet: HCIEventCode.name(HCIEventCode.numberOfCompletedPackets))
        let count = Int(try r.u8("Num_Handles"))
        guard r.remaining >= count * 4 else {
            throw r.malformed("\(count) handles need \(count * 4) bytes, \(r.remaining) left")
        }
        for i in 0..<count {
            let handle = try r.connectionHandle("Connection_Handle[\(i)]")
            let packets = try r.u16("Num_Completed_Packets[\(i)]")
            body(CompletedPackets(connectionHandle: handle, count: packets))
        }
    }

    /// The spec name of this event, for logs.
    package var name: String {
        switch self {
        case .commandComplete: "Command Complete"
        case .commandStatus: "Command Status"
        case .disconnectionComplete: "Disconnection Complete"
        case .numberOfCompletedPackets: "Number Of Completed Packets"
        case .readRemoteVersionInformationComplete: "Read Remote Version Information Complete"
        case .hardwareError: "Hardware Error"
        case .leConnectionComplete(let event): LEMetaSubevent.name(event.subevent)
        case .leAdvertisingReport: "LE Advertising Report"
        case .leExtendedAdvertisingReport: "LE Extended Advertising Report"
        case .leConnectionUpdateComplete: "LE Connection Update Complete"
        case .leRemoteConnectionParameterRequest: "LE Remote Connection Parameter Request"
        case .leReadRemoteFeaturesComplete: "LE Read Remote Features Complete"
        case .leDataLengthChange: "LE Data Length Change"
        case .lePHYUpdateComplete: "LE PHY Update Complete"
        case .encryptionChange(let event): event.isKeyRefresh ? "Encryption Key Refresh Complete" : "Encryption Change"
        case .leLongTermKeyRequest: "LE Long Term Key Request"
        case .unknown(let code, _): HCIEventCode.name(code)
        case .unknownLEMeta(let subevent, _): LEMetaSubevent.name(subevent)
        }
    }
}
