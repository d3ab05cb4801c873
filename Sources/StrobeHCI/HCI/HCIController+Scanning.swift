extension HCIController {
    /// The commands of one of the scan owner's steps.
    func performScanStep(_ step: LEScanArbiter.Step) async throws {
        switch step {
        case .start(let settings, let stopping):
            if let stopping { try await disableScan(extended: stopping.extended) }
            let type: LEScanType = settings.active ? .active : .passive
            if settings.extended {
                let phy = HCILESetExtendedScanParameters.PHYParameters(scanType: type, scanInterval: settings.interval, scanWindow: settings.window)
                // LE 1M unless LE Coded alone is asked for (no PHY at all would scan nothing).
                let listensOn1M = settings.phys.contains(.le1M) || !settings.phys.contains(.leCoded)
                try await send(HCILESetExtendedScanParameters(
                    ownAddressType: settings.ownAddressType, le1M: listensOn1M ? phy : nil,
                    leCoded: settings.phys.contains(.leCoded) ? phy : nil))
                try await send(HCILESetExtendedScanEnable(enable: true, filterDuplicates: settings.filterDuplicates ? 1 : 0))
            } else {
                try await send(HCILESetScanParameters(
                    scanType: type, scanInterval: settings.interval, scanWindow: settings.window,
                    ownAddressType: settings.ownAddressType))
                try await send(HCILESetScanEnable(enable: true, filterDuplicates: settings.filterDuplicates))
            }
        case .stop(let settings):
            try await disableScan(extended: settings.extended)
        }
    }

    /// Command Disallowed means the scan is off already (as after a step that failed).
    private func disableScan(extended: Bool) async throws {
        do {
            if extended {
                try await send(HCILESetExtendedScanEnable(enable: false))
            } else {
                try await send(HCILESetScanEnable(enable: false))
            }
        } catch HCIError.commandFailed(_, .commandDisallowed) {
            return
        }
    }
}
