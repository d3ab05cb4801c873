/// What one input report carries: each usage with its value. For array fields (keys, buttons)
/// an active usage appears with value 1; for variable fields every usage appears with its value
/// (0 for a button up).
package struct HIDUsageValue: Sendable, Hashable, CustomStringConvertible {
    package var usage: HIDUsage
    package var value: Int32

    package init(usage: HIDUsage, value: Int32) {
        self.usage = usage
        self.value = value
    }

    package var description: String { "\(usage)=\(value)" }
}

extension HIDReportDescriptor.Report {
    /// The usages and values in `data` (the report's bytes, without a report ID byte, as HOGP
    /// carries them). Throws when `data` is shorter than the report; extra bytes are ignored.
    package func usages(in data: some Collection<UInt8>) throws(HIDReportError) -> [HIDUsageValue] {
        let bytes = Array(data)
        guard bytes.count >= byteLength else { throw .tooShort(reportID: id, expected: byteLength, got: bytes.count) }
        return bytes.withUnsafeBytes(usages(inChecked:))
    }

    private func usages(inChecked bytes: UnsafeRawBufferPointer) -> [HIDUsageValue] {
        var out: [HIDUsageValue] = []
        for field in fields where !field.isConstant {
            for element in 0..<field.count {
                let value = field.value(in: bytes, element: element)
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
    package func activeUsages(in data: some Collection<UInt8>) throws(HIDReportError) -> Set<HIDUsage> {
        Set(try usages(in: data).filter { $0.value != 0 }.map(\.usage))
    }

}

extension HIDReportDescriptor.Field {
    /// Element `element`'s value in a report long enough for the layout: sign-extended when the
    /// logical minimum is negative. What both the decoder and the usage tracker read.
    func value(in bytes: UnsafeRawBufferPointer, element: Int) -> Int32 {
        let offset = bitOffset + element * size
        var raw: UInt32 = 0
        for i in 0..<min(size, 32) {
            let bit = offset + i
            if bytes[bit / 8] >> (bit % 8) & 1 == 1 { raw |= 1 << UInt32(i) }
        }
        guard logicalMinimum < 0, size < 32, size > 0 else { return Int32(bitPattern: raw) }
        let shift = UInt32(32 - size)
        return Int32(bitPattern: raw << shift) >> Int32(shift)
    }
}
