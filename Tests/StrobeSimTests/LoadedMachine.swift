import StrobeHCI

/// Real-time tests share two cores with the whole suite, whose start can keep the cooperative
/// pool busy for seconds; the host's commands get a deadline such a stall does not pass. The
/// deadline itself is tested on a virtual clock.
extension HCIController.Configuration {
    static let loadedMachine = HCIController.Configuration(commandTimeout: .seconds(15))
}
