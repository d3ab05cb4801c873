/// Event codes the stack decodes (Core Specification Vol 4, Part E, 7.7).
package enum HCIEventCode {
    package static let disconnectionComplete: UInt8 = 0x05
    package static let encryptionChange: UInt8 = 0x08
    package static let readRemoteVersionInformationComplete: UInt8 = 0x0C
    package static let commandComplete: UInt8 = 0x0E
    package static let commandStatus: UInt8 = 0x0F
    package static let hardwareError: UInt8 = 0x10
    package static let numberOfCompletedPackets: UInt8 = 0x13
    package static let dataBufferOverflow: UInt8 = 0x1A
    package static let encryptionKeyRefreshComplete: UInt8 = 0x30
    package static let encryptionChangeV2: UInt8 = 0x59
    package static let leMeta: UInt8 = 0x3E

    /// The event's name in the specification, or "event 0xNN" for one the stack does not name.
    package static func name(_ code: UInt8) -> String {
        switch code {
        case disconnectionComplete: "Disconnection Complete"
        case encryptionChange: "Encryption Change"
        case readRemoteVersionInformationComplete: "Read Remote Version Information Complete"
        case commandComplete: "Command Complete"
        case commandStatus: "Command Status"
        case hardwareError: "Hardware Error"
        case numberOfCompletedPackets: "Number Of Completed Packets"
        case dataBufferOverflow: "Data Buffer Overflow"
        case encryptionKeyRefreshComplete: "Encryption Key Refresh Complete"
        case encryptionChangeV2: "Encryption Change [v2]"
        case leMeta: "LE Meta"
        default: "event \(hex(code))"
        }
    }
}

/// LE Meta subevent codes the stack decodes (Core Specification Vol 4, Part E, 7.7.65).
package enum LEMetaSubevent {
    package static let connectionComplete: UInt8 = 0x01
    package static let advertisingReport: UInt8 = 0x02
    package static let connectionUpdateComplete: UInt8 = 0x03
    package static let readRemoteFeaturesComplete: UInt8 = 0x04
    package static let longTermKeyRequest: UInt8 = 0x05
    package static let remoteConnectionParameterRequest: UInt8 = 0x06
    package static let dataLengthChange: UInt8 = 0x07
    package static let enhancedConnectionCompleteV1: UInt8 = 0x0A
    package static let phyUpdateComplete: UInt8 = 0x0C
    package static let extendedAdvertisingReport: UInt8 = 0x0D
    package static let enhancedConnectionCompleteV2: UInt8 = 0x29

    /// The subevent's name in the specification, or "LE Meta subevent 0xNN" for one the stack does not name.
    package static func name(_ subevent: UInt8) -> String {
        switch subevent {
        case connectionComplete: "LE Connection Complete"
        case advertisingReport: "LE Advertising Report"
        case connectionUpdateComplete: "LE Connection Update Complete"
        case readRemoteFeaturesComplete: "LE Read Remote Features Complete"
        case longTermKeyRequest: "LE Long Term Key Request"
        case remoteConnectionParameterRequest: "LE Remote Connection Parameter Request"
        case dataLengthChange: "LE Data Length Change"
        case enhancedConnectionCompleteV1: "LE Enhanced Connection Complete"
        case phyUpdateComplete: "LE PHY Update Complete"
        case extendedAdvertisingReport: "LE Extended Advertising Report"
        case enhancedConnectionCompleteV2: "LE Enhanced Connection Complete [v2]"
        default: "LE Meta subevent \(hex(subevent))"
        }
    }
}

/// The event masks the controller driver sets during initialisation.
package enum HCIEventMask {
    /// Set Event Mask: bit (code - 1) for each event the stack handles. Number Of Completed
    /// Packets, Command Complete and Command Status cannot be masked.
    package static let `default`: UInt64 = [
        HCIEventCode.disconnectionComplete,
        HCIEventCode.encryptionChange,
        HCIEventCode.readRemoteVersionInformationComplete,
        HCIEventCode.hardwareError,
        HCIEventCode.dataBufferOverflow,
        HCIEventCode.encryptionKeyRefreshComplete,
        HCIEventCode.leMeta,
    ].reduce(0) { $0 | 1 << UInt64($1 - 1) }

    /// LE Set Event Mask: bit (subevent - 1) for each LE subevent the stack handles. When an
    /// enhanced connection complete bit is set the controller sends that instead of the legacy one.
    package static let leDefault: UInt64 = [
        LEMetaSubevent.connectionComplete,
        LEMetaSubevent.advertisingReport,
        LEMetaSubevent.connectionUpdateComplete,
        LEMetaSubevent.readRemoteFeaturesComplete,
        LEMetaSubevent.longTermKeyRequest,
        LEMetaSubevent.remoteConnectionParameterRequest,
        LEMetaSubevent.dataLengthChange,
        LEMetaSubevent.enhancedConnectionCompleteV1,
        LEMetaSubevent.phyUpdateComplete,
        LEMetaSubevent.extendedAdvertisingReport,
        LEMetaSubevent.enhancedConnectionCompleteV2,
    ].reduce(0) { $0 | 1 << UInt64($1 - 1) }

    /// For controllers of Core 4.0 and older, which may reject bits they do not know: the five
    /// 4.0 LE subevents only.
    package static let leCore40: UInt64 = 0x1F
}
