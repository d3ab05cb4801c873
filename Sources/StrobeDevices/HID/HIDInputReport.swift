/// What one input report carries: each usage with its value. For array fields (keys, buttons)
/// an active usage appears with value 1; for variable fields every usage appears with its value
/// (0 for a button up).
public struct HIDUsageValue: Sendable, Hashable, CustomStringConvertible {
    public var usage: HIDUsage
    public var value: Int32

    public init(usage: HIDUsage, value: Int32) {
        self.usage = usage
        self.value = value
    }

    public var description: String { "\(usage)=\(value)" }
}

extension HIDReportDescriptor.Report {
    /// The usages and values in `data` (the report's bytes, without a report ID byte, as HOGP
    /// carries them). Throws when `data` is shorter than the report; extra bytes are ignored.
    public func usages(in data: some Collection<UInt8>) throws(HIDReportError) -> [HIDUsageValue] {
        let bytes = Array(data)
        guard bytes.count >= byteLength else { throw .tooShort(reportID: id, expected: byteLength, got: bytes.count) }
        var out: [HIDUsageValue] = []
        for field in fields where !field.isConstant {
            for element in 0..<field.count {
                let raw = Self.bits(bytes, at: field.bitOffset + element * field.size, count: field.size)
                let value = field.logicalMinimum < 0 ? Self.signExtend(raw, bits: field.size) : Int32(bitPattern: raw)
                if field.isVariable {
                    guard let usage = field.usages.isEmpty ? nil : field.usages[min(element, field.usages.count - 1)] else { continue }
                    out.append(HIDUsageValue(usage: usage, value: value))
                } else {
                    // An index outside the logical range means no usage (a key slot left empty).
                    guard value >= field.logicalMinimum, value <= field.logicalMaximum else { continue }
                    let index = Int(value) - Int(field.logicalMinimum)
                    guard index < field.usages.count else { continue }
                    let usage = field.usages[index]
                    // Usage 0 is "no event" on every page.
                    guard usage.id != 0 else { continue }
                    out.append(HIDUsageValue(usage: usage, value: 1))
                }
            }
        }
        return out
    }

    /// The usages active in `data`: array entries, and variable ones whose value is not 0.
    public func activeUsages(in data: some Collection<UInt8>) throws(HIDReportError) -> Set<HIDUsage> {
        Set(try usages(in: data).filter { $0.value != 0 }.map(\.usage))
    }

    /// `count` bits (at most 32) from bit `offset`, least significant bit first.
    static func bits(_ bytes: [UInt8], at offset: Int, count: Int) -> UInt32 {
        var value: UInt32 = 0
        for i in 0..<min(count, 32) {
            let bit = offset + i
            if bytes[bit / 8] >> (bit % 8) & 1 == 1 { value |= 1 << UInt32(i) }
        }
        return value
    }

    static func signExtend(_ raw: UInt32, bits: Int) -> Int32 {
        guard bits < 32, bits > 0 else { return Int32(bitPattern: raw) }
        let shift = UInt32(32 - bits)
        return Int32(bitPattern: raw << shift) >> Int32(shift)
    }
}
