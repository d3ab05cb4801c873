import StrobeHCI

/// Connectable, scannable advertising with legacy PDUs (which every scanner hears): through the
/// extended advertising commands when the controller has them, the legacy ones otherwise.
package struct LEAdvertiser: Sendable {
    /// The controller that advertises.
    package let controller: HCIController

    /// Advertises through `controller`, which must be open when `start` is called.
    package init(controller: HCIController) { self.controller = controller }

    private var usesExtendedCommands: Bool { controller.info?.supportedCommands.supportsExtendedAdvertising ?? false }

    /// Starts advertising `data` (and `scanResponse`), each at most 31 bytes, every `interval`
    /// (20 ms ... 10.24 s), from the public address or, with `randomAddress`, from that one.
    package func start(data: AdvertisingData, scanResponse: AdvertisingData? = nil, interval: Duration = .milliseconds(100),
                      randomAddress: BluetoothAddress? = nil) async throws {
        let ownAddressType: LEOwnAddressType = randomAddress == nil ? .public : .random
        let encoded = data.encoded
        let response = scanResponse?.encoded ?? []
        guard encoded.count <= legacyAdvertisingDataMaximumLength, response.count <= legacyAdvertisingDataMaximumLength else {
            throw LEAdvertiserError.dataTooLong(advertising: encoded.count, scanResponse: response.count)
        }
        let units = LETime.units625us(interval, range: 0x0020...0x4000)
        if usesExtendedCommands {
            try await controller.send(HCILESetExtendedAdvertisingParameters(
                intervalMin: UInt32(units), intervalMax: UInt32(units), ownAddressType: ownAddressType))
            if let randomAddress { try await controller.send(HCILESetAdvertisingSetRandomAddress(address: randomAddress)) }
            if let command = HCILESetExtendedAdvertisingData(data: encoded) { try await controller.send(command) }
            if let command = HCILESetExtendedScanResponseData(data: response) { try await controller.send(command) }
            try await controller.send(HCILESetExtendedAdvertisingEnable(enable: true))
        } else {
            // The random address was set by the central (LE Set Random Address) before this.
            try await controller.send(HCILESetAdvertisingParameters(intervalMin: units, intervalMax: units, ownAddressType: ownAddressType))
            if let command = HCILESetAdvertisingData(data: encoded) { try await controller.send(command) }
            if let command = HCILESetScanResponseData(data: response) { try await controller.send(command) }
            try await controller.send(HCILESetAdvertisingEnable(enable: true))
        }
    }

    /// Disables advertising (LE Set Extended Advertising Enable or LE Set Advertising Enable, off).
    /// Throws the controller's `HCIError` when the command fails.
    package func stop() async throws {
        if usesExtendedCommands {
            try await controller.send(HCILESetExtendedAdvertisingEnable(enable: false))
        } else {
            try await controller.send(HCILESetAdvertisingEnable(enable: false))
        }
    }
}

/// Why advertising could not be started.
public enum LEAdvertiserError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The encoded advertising data or scan response (sizes in bytes) exceeds the 31 bytes legacy PDUs carry.
    case dataTooLong(advertising: Int, scanResponse: Int)

    /// A message giving both sizes and the 31-byte limit.
    public var description: String {
        switch self {
        case .dataTooLong(let advertising, let scanResponse):
            "advertising data (\(advertising) bytes) and scan response (\(scanResponse) bytes) must each fit in 31 bytes"
        }
    }
}
