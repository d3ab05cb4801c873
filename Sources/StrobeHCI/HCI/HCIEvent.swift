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

    /// Decodes an event from its code and parameters, each through its description
    /// (`walkParameters`). Parameters past the described ones are ignored: a later version of
    /// the specification may append some.
    package init(code: UInt8, parameters: UnsafeRawBufferPointer) throws(HCIError) {
        let name = HCIEventCode.name(code)
        func decoded<P: HCIParameters>(_ blank: P) throws(HCIError) -> P { try Self.decoded(blank, parameters, packet: name) }
        switch code {
        case HCIEventCode.commandComplete: self = .commandComplete(try decoded(CommandCompleteEvent()))
        case HCIEventCode.commandStatus: self = .commandStatus(try decoded(CommandStatusEvent()))
        case HCIEventCode.disconnectionComplete: self = .disconnectionComplete(try decoded(DisconnectionCompleteEvent()))
        case HCIEventCode.numberOfCompletedPackets:
            var entries: [CompletedPackets] = []
            try Self.forEachCompletedPackets(parameters) { entries.append($0) }
            self = .numberOfCompletedPackets(entries)
        case HCIEventCode.readRemoteVersionInformationComplete:
            self = .readRemoteVersionInformationComplete(try decoded(ReadRemoteVersionInformationCompleteEvent()))
        case HCIEventCode.hardwareError: self = .hardwareError(code: try decoded(HardwareErrorEvent()).code)
        case HCIEventCode.encryptionChange: self = .encryptionChange(try decoded(EncryptionChangeEvent()))
        case HCIEventCode.encryptionChangeV2:
            self = .encryptionChange(try decoded(EncryptionChangeEvent(status: .success, connectionHandle: 0, enabled: false, keySize: 0)))
        case HCIEventCode.encryptionKeyRefreshComplete:
            self = .encryptionChange(try decoded(EncryptionChangeEvent(status: .success, connectionHandle: 0, enabled: true, isKeyRefresh: true)))
        case HCIEventCode.leMeta:
            var r = HCIFieldReader(parameters, packet: name)
            let subevent = try r.u8("Subevent_Code")
            try self.init(leSubevent: subevent, parameters: r.rest())
        default:
            self = .unknown(code: code, parameters: Array(parameters))
        }
    }

    /// Decodes an LE Meta subevent from the parameters after the subevent code.
    init(leSubevent subevent: UInt8, parameters: UnsafeRawBufferPointer) throws(HCIError) {
        let name = LEMetaSubevent.name(subevent)
        func decoded<P: HCIParameters>(_ blank: P) throws(HCIError) -> P { try Self.decoded(blank, parameters, packet: name) }
        switch subevent {
        case LEMetaSubevent.connectionComplete, LEMetaSubevent.enhancedConnectionCompleteV1, LEMetaSubevent.enhancedConnectionCompleteV2:
            self = .leConnectionComplete(try decoded(LEConnectionCompleteEvent(subevent: subevent)))
        case LEMetaSubevent.advertisingReport: self = .leAdvertisingReport(try decoded(HCIList<LEAdvertisingReport>()).elements)
        case LEMetaSubevent.extendedAdvertisingReport:
            self = .leExtendedAdvertisingReport(try decoded(HCIList<LEExtendedAdvertisingReport>()).elements)
        case LEMetaSubevent.connectionUpdateComplete: self = .leConnectionUpdateComplete(try decoded(LEConnectionUpdateCompleteEvent()))
        case LEMetaSubevent.remoteConnectionParameterRequest:
            self = .leRemoteConnectionParameterRequest(try decoded(LERemoteConnectionParameterRequestEvent()))
        case LEMetaSubevent.readRemoteFeaturesComplete:
            self = .leReadRemoteFeaturesComplete(try decoded(LEReadRemoteFeaturesCompleteEvent()))
        case LEMetaSubevent.longTermKeyRequest: self = .leLongTermKeyRequest(try decoded(LELongTermKeyRequestEvent()))
        case LEMetaSubevent.dataLengthChange: self = .leDataLengthChange(try decoded(LEDataLengthChangeEvent()))
        case LEMetaSubevent.phyUpdateComplete: self = .lePHYUpdateComplete(try decoded(LEPHYUpdateCompleteEvent()))
        default:
            self = .unknownLEMeta(subevent: subevent, parameters: Array(parameters))
        }
    }

    /// `blank`'s fields read from `parameters` through its description; parameters past the
    /// described ones are ignored.
    private static func decoded<P: HCIParameters>(_ blank: P, _ parameters: UnsafeRawBufferPointer,
                                                  packet: String) throws(HCIError) -> P {
        var event = blank
        var reader = HCIParameterReader(parameters, packet: packet)
        try event.walkParameters(&reader)
        return event
    }

    /// The event as a controller sends it (event code, parameter length, parameters; no H4
    /// type byte), each through its description: what the simulated controller sends.
    package var packet: [UInt8] {
        func event(_ code: UInt8, _ parameters: some HCIParameters, subevent: UInt8? = nil) -> [UInt8] {
            let bytes = (subevent.map { [$0] } ?? []) + parameters.encodedParameters
            return [code, UInt8(truncatingIfNeeded: bytes.count)] + bytes
        }
        func le(_ subevent: UInt8, _ parameters: some HCIParameters) -> [UInt8] {
            event(HCIEventCode.leMeta, parameters, subevent: subevent)
        }
        switch self {
        case .commandComplete(let e): return event(HCIEventCode.commandComplete, e)
        case .commandStatus(let e): return event(HCIEventCode.commandStatus, e)
        case .disconnectionComplete(let e): return event(HCIEventCode.disconnectionComplete, e)
        case .numberOfCompletedPackets(let entries): return event(HCIEventCode.numberOfCompletedPackets, HCIList(entries))
        case .readRemoteVersionInformationComplete(let e): return event(HCIEventCode.readRemoteVersionInformationComplete, e)
        case .hardwareError(let code):
            var e = HardwareErrorEvent()
            e.code = code
            return event(HCIEventCode.hardwareError, e)
        case .leConnectionComplete(let e): return le(e.subevent, e)
        case .leAdvertisingReport(let reports): return le(LEMetaSubevent.advertisingReport, HCIList(reports))
        case .leExtendedAdvertisingReport(let reports):
            return le(LEMetaSubevent.extendedAdvertisingReport, HCIList(reports))
        case .leConnectionUpdateComplete(let e): return le(LEMetaSubevent.connectionUpdateComplete, e)
        case .leRemoteConnectionParameterRequest(let e): return le(LEMetaSubevent.remoteConnectionParameterRequest, e)
        case .leReadRemoteFeaturesComplete(let e): return le(LEMetaSubevent.readRemoteFeaturesComplete, e)
        case .leDataLengthChange(let e): return le(LEMetaSubevent.dataLengthChange, e)
        case .lePHYUpdateComplete(let e): return le(LEMetaSubevent.phyUpdateComplete, e)
        case .encryptionChange(let e):
            let code = e.isKeyRefresh ? HCIEventCode.encryptionKeyRefreshComplete
                : e.keySize == nil ? HCIEventCode.encryptionChange : HCIEventCode.encryptionChangeV2
            return event(code, e)
        case .leLongTermKeyRequest(let e): return le(LEMetaSubevent.longTermKeyRequest, e)
        case .unknown(let code, let parameters): return [code, UInt8(truncatingIfNeeded: parameters.count)] + parameters
        case .unknownLEMeta(let subevent, let parameters):
            return [HCIEventCode.leMeta, UInt8(truncatingIfNeeded: parameters.count + 1), subevent] + parameters
        }
    }

    /// Walks the entries of Number Of Completed Packets in place, each through its description,
    /// without making an array of them. The whole event is checked before the first entry is
    /// handed out.
    package static func forEachCompletedPackets(
        _ parameters: UnsafeRawBufferPointer, _ body: (CompletedPackets) -> Void
    ) throws(HCIError) {
        var reader = HCIParameterReader(parameters, packet: HCIEventCode.name(HCIEventCode.numberOfCompletedPackets))
        let count = Int(try reader.reader.u8("Num_Handles"))
        guard reader.reader.remaining >= count * 4 else {
            throw reader.reader.malformed("\(count) handles need \(count * 4) bytes, \(reader.reader.remaining) left")
        }
        for i in 0..<count {
            reader.reader.element = i
            var entry = CompletedPackets()
            try entry.walkParameters(&reader)
            body(entry)
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
