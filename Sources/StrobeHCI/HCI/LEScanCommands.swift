// LE scanning commands, legacy and extended (Core Specification Vol 4, Part E, 7.8.10, 7.8.11,
// 7.8.64, 7.8.65).

/// Passive scanning only listens; active scanning also sends scan requests for scan responses.
package enum LEScanType: UInt8, Sendable, Hashable {
    case passive = 0x00
    case active = 0x01
}

/// Time in the 0.625 ms units that scan and advertising intervals use.
package enum LETime {
    /// The nearest count of 0.625 ms units, clamped to `range`.
    package static func units625us(_ duration: Duration, range: ClosedRange<Int> = 0...0xFFFF) -> UInt16 {
        units(duration, of: .microseconds(625), range: range)
    }

    /// The nearest count of `unit`-long units (1.25 ms connection intervals, 10 ms timeouts),
    /// clamped to `range`.
    package static func units(_ duration: Duration, of unit: Duration, range: ClosedRange<Int> = 0...0xFFFF) -> UInt16 {
        let count = Int((duration / unit).rounded())
        return UInt16(clamping: min(max(count, range.lowerBound), range.upperBound))
    }
}

/// HCI_LE_Set_Scan_Parameters. Interval and window are in 0.625 ms units (0x0004 ... 0x4000).
package struct HCILESetScanParameters: HCICommand {
    package static let opcode = HCIOpcode.leSetScanParameters

    package var scanType: LEScanType
    package var scanInterval: UInt16
    package var scanWindow: UInt16
    package var ownAddressType: LEOwnAddressType
    package var scanningFilterPolicy: UInt8

    package init(scanType: LEScanType, scanInterval: UInt16, scanWindow: UInt16,
                ownAddressType: LEOwnAddressType = .public, scanningFilterPolicy: UInt8 = 0) {
        self.scanType = scanType
        self.scanInterval = scanInterval
        self.scanWindow = scanWindow
        self.ownAddressType = ownAddressType
        self.scanningFilterPolicy = scanningFilterPolicy
    }

    /// Blank, for a decoder to fill in.
    package init() {
        self.init(scanType: .passive, scanInterval: 0, scanWindow: 0)
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("LE_Scan_Type", &scanType)
        try walker.field("LE_Scan_Interval", &scanInterval)
        try walker.field("LE_Scan_Window", &scanWindow)
        try walker.field("Own_Address_Type", &ownAddressType)
        try walker.field("Scanning_Filter_Policy", &scanningFilterPolicy)
    }
}

/// HCI_LE_Set_Scan_Enable.
package struct HCILESetScanEnable: HCICommand {
    package static let opcode = HCIOpcode.leSetScanEnable

    package var enable: Bool
    package var filterDuplicates: Bool

    package init(enable: Bool, filterDuplicates: Bool = false) {
        self.enable = enable
        self.filterDuplicates = filterDuplicates
    }

    /// Blank, for a decoder to fill in.
    package init() {
        self.init(enable: false)
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("LE_Scan_Enable", &enable)
        try walker.field("Filter_Duplicates", &filterDuplicates)
    }
}

/// HCI_LE_Set_Extended_Scan_Parameters. One entry per scanning PHY (LE 1M and/or LE Coded);
/// interval and window are in 0.625 ms units.
package struct HCILESetExtendedScanParameters: HCICommand {
    package static let opcode = HCIOpcode.leSetExtendedScanParameters

    package struct PHYParameters: Sendable, Hashable {
        package var scanType: LEScanType
        package var scanInterval: UInt16
        package var scanWindow: UInt16
        package init(scanType: LEScanType, scanInterval: UInt16, scanWindow: UInt16) {
            self.scanType = scanType
            self.scanInterval = scanInterval
            self.scanWindow = scanWindow
        }

        /// The set for one PHY, walked when `present` (its bit is in Scanning_PHYs).
        static func walk<Walker: HCIParameterWalker>(_ parameters: inout Self?, if present: Bool,
                                                     _ walker: inout Walker) throws(Walker.Failure) {
            guard present else { return parameters = nil }
            var set = parameters ?? Self(scanType: .passive, scanInterval: 0, scanWindow: 0)
            try walker.field("Scan_Type", &set.scanType)
            try walker.field("Scan_Interval", &set.scanInterval)
            try walker.field("Scan_Window", &set.scanWindow)
            parameters = set
        }
    }

    package var ownAddressType: LEOwnAddressType
    package var scanningFilterPolicy: UInt8
    package var le1M: PHYParameters?
    package var leCoded: PHYParameters?

    package init(ownAddressType: LEOwnAddressType = .public, scanningFilterPolicy: UInt8 = 0,
                le1M: PHYParameters?, leCoded: PHYParameters? = nil) {
        self.ownAddressType = ownAddressType
        self.scanningFilterPolicy = scanningFilterPolicy
        self.le1M = le1M
        self.leCoded = leCoded
    }

    /// Blank, for a decoder to fill in.
    package init() {
        self.init(le1M: nil)
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Own_Address_Type", &ownAddressType)
        try walker.field("Scanning_Filter_Policy", &scanningFilterPolicy)
        var phys = LEPHYs()
        if le1M != nil { phys.insert(.le1M) }
        if leCoded != nil { phys.insert(.leCoded) }
        try walker.field("Scanning_PHYs", &phys)
        // The per-PHY sets follow the bit order of Scanning_PHYs.
        try PHYParameters.walk(&le1M, if: phys.contains(.le1M), &walker)
        try PHYParameters.walk(&leCoded, if: phys.contains(.leCoded), &walker)
    }
}

/// HCI_LE_Set_Extended_Scan_Enable. Duration is in 10 ms units, period in 1.28 s units; zero
/// scans until disabled.
package struct HCILESetExtendedScanEnable: HCICommand {
    package static let opcode = HCIOpcode.leSetExtendedScanEnable

    package var enable: Bool
    /// 0 off, 1 on, 2 on and reset every scan period.
    package var filterDuplicates: UInt8
    package var duration: UInt16
    package var period: UInt16

    package init(enable: Bool, filterDuplicates: UInt8 = 0, duration: UInt16 = 0, period: UInt16 = 0) {
        self.enable = enable
        self.filterDuplicates = filterDuplicates
        self.duration = duration
        self.period = period
    }

    /// Blank, for a decoder to fill in.
    package init() {
        self.init(enable: false)
    }

    package mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure) {
        try walker.field("Enable", &enable)
        try walker.field("Filter_Duplicates", &filterDuplicates)
        try walker.field("Duration", &duration)
        try walker.field("Period", &period)
    }
}
