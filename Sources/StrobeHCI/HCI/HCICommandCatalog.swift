/// Every command the stack sends, by opcode: what a capture's viewer and the simulated
/// controller decode commands with (each through its one description, `walkParameters`).
package enum HCICommandCatalog {
    package static let commands: [any HCICommand.Type] = [
        HCIReset.self, HCISetEventMask.self, HCIReadLocalVersionInformation.self, HCIReadBDAddr.self,
        HCIReadLocalSupportedCommands.self, HCIReadLocalSupportedFeatures.self, HCIReadBufferSize.self,
        HCILESetEventMask.self, HCILEReadLocalSupportedFeatures.self, HCILEReadBufferSizeV1.self, HCILEReadBufferSizeV2.self,
        HCILESetAdvertisingParameters.self, HCILESetAdvertisingData.self, HCILESetScanResponseData.self,
        HCILESetAdvertisingEnable.self, HCILESetRandomAddress.self,
        HCILESetExtendedAdvertisingParameters.self, HCILESetExtendedAdvertisingData.self, HCILESetExtendedScanResponseData.self,
        HCILESetExtendedAdvertisingEnable.self, HCILESetAdvertisingSetRandomAddress.self,
        HCILESetScanParameters.self, HCILESetScanEnable.self, HCILESetExtendedScanParameters.self, HCILESetExtendedScanEnable.self,
        HCILECreateConnection.self, HCILEExtendedCreateConnection.self, HCILECreateConnectionCancel.self, HCIDisconnect.self,
        HCILEConnectionUpdate.self, HCILERemoteConnectionParameterRequestReply.self,
        HCILERemoteConnectionParameterRequestNegativeReply.self, HCILESetDataLength.self, HCILESetPHY.self, HCILEReadPHY.self,
        HCILEReadRemoteFeatures.self, HCIReadRemoteVersionInformation.self,
        HCILEEnableEncryption.self, HCILELongTermKeyRequestReply.self, HCILELongTermKeyRequestNegativeReply.self,
    ]

    private static let byOpcode: [UInt16: any HCICommand.Type] = Dictionary(
        commands.map { ($0.opcode.rawValue, $0) }, uniquingKeysWith: { first, _ in first })

    /// The command type with `opcode`, nil for one the stack does not send.
    package static func command(opcode: UInt16) -> (any HCICommand.Type)? { byOpcode[opcode] }

    /// What a capture shows of a command's parameters: its fields, named as the Core
    /// Specification names them; nil for a command the stack does not send. Parameters that do
    /// not fit the description give the error, and the bytes only when no key is among them.
    package static func fields(opcode: UInt16, parameters: UnsafeRawBufferPointer)
        -> Result<[(name: String, value: String)], HCIError>? {
        guard let command = byOpcode[opcode] else { return nil }
        return describe(command, parameters)
    }

    /// What a capture shows of Command Complete's return parameters for `opcode`: Status, then
    /// the command's return fields by their Core Specification names (bytes past them as
    /// `appended`); nil for a command the stack does not send.
    package static func returnFields(opcode: UInt16, returnParameters: UnsafeRawBufferPointer)
        -> Result<[(name: String, value: String)], HCIError>? {
        guard let command = byOpcode[opcode] else { return nil }
        return describeReturn(command, returnParameters)
    }

    private static func describeReturn<C: HCICommand>(_: C.Type, _ bytes: UnsafeRawBufferPointer)
        -> Result<[(name: String, value: String)], HCIError> {
        var describer = HCIParameterDescriber(bytes, packet: "Command Complete for \(C.opcode)")
        var status = HCIStatus.success
        var returned = C.ReturnParameters()
        do throws(HCIError) {
            try describer.field("Status", &status)
            // A command that failed may return its Status alone.
            if status.isSuccess || describer.remaining > 0 { try returned.walkParameters(&describer) }
        } catch {
            return .failure(error)
        }
        var fields = describer.fields
        if describer.remaining > 0 {
            fields.append(("appended", hexBytes(Array(UnsafeRawBufferPointer(rebasing: bytes.suffix(describer.remaining))))))
        }
        return .success(fields)
    }

    private static func describe<C: HCICommand>(_: C.Type, _ parameters: UnsafeRawBufferPointer)
        -> Result<[(name: String, value: String)], HCIError> {
        var command = C()
        var describer = HCIParameterDescriber(parameters, packet: C.opcode.description)
        do throws(HCIError) {
            try command.walkParameters(&describer)
            try describer.finish()
            return .success(describer.fields)
        } catch {
            return .failure(error)
        }
    }
}
