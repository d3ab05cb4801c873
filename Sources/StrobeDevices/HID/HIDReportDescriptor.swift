/// A HID report descriptor (a HOGP Report Map), parsed as the HID 1.11 specification (6.2.2)
/// defines it: main, global and local items, report IDs, sizes and counts, usage pages, usages
/// and usage ranges, collections, logical minimum and maximum, push and pop. What comes out is
/// the layout of each report: its fields, their bit offsets and the usages they carry.
package struct HIDReportDescriptor: Sendable, Hashable {
    package enum ReportKind: String, Sendable, Hashable { case input, output, feature }

    /// One Input, Output or Feature main item: `count` elements of `size` bits each.
    package struct Field: Sendable, Hashable {
        /// From the report's first bit (after the report ID byte, which HOGP leaves out).
        package var bitOffset: Int
        package var size: Int
        package var count: Int
        /// Constant (padding), else data.
        package var isConstant: Bool
        /// Variable: one usage per element, each with its value. Array: each element holds the
        /// index of an active usage (keys down, buttons pressed).
        package var isVariable: Bool
        package var isRelative: Bool
        package var logicalMinimum: Int32
        package var logicalMaximum: Int32
        package var usages: [HIDUsage]
    }

    package struct Report: Sendable, Hashable {
        /// 0 when the descriptor uses no report IDs.
        package var id: UInt8
        package var kind: ReportKind
        package var fields: [Field]
        package var bitLength: Int
        package var byteLength: Int { (bitLength + 7) / 8 }
    }

    package let reports: [Report]
    /// The usages of the top-level (application) collections: what the device says it is.
    package let applicationUsages: [HIDUsage]

    package var inputReports: [Report] { reports.filter { $0.kind == .input } }

    package func inputReport(id: UInt8) -> Report? { reports.first { $0.kind == .input && $0.id == id } }

    /// The most elements one usage range may expand to; more is a hostile descriptor.
    static let maximumUsages = 4096

    package init(parsing bytes: [UInt8]) throws(HIDDescriptorError) {
        var parser = Parser()
        try parser.parse(bytes)
        reports = parser.reports
        applicationUsages = parser.applicationUsages
    }

    /// The boot keyboard report (HID 1.11, Appendix B.1): what a keyboard offering only the
    /// boot protocol sends (modifiers, a reserved byte, six key codes).
    package static let bootKeyboard: HIDReportDescriptor = {
        let bytes: [UInt8] = [
            0x05, 0x01, 0x09, 0x06, 0xA1, 0x01, 0x05, 0x07, 0x19, 0xE0, 0x29, 0xE7, 0x15, 0x00, 0x25, 0x01,
            0x75, 0x01, 0x95, 0x08, 0x81, 0x02, 0x95, 0x01, 0x75, 0x08, 0x81, 0x01, 0x95, 0x05, 0x75, 0x01,
            0x05, 0x08, 0x19, 0x01, 0x29, 0x05, 0x91, 0x02, 0x95, 0x01, 0x75, 0x03, 0x91, 0x01, 0x95, 0x06,
            0x75, 0x08, 0x15, 0x00, 0x25, 0x65, 0x05, 0x07, 0x19, 0x00, 0x29, 0x65, 0x81, 0x00, 0xC0,
        ]
        // The spec's own descriptor: it parses.
        return try! HIDReportDescriptor(parsing: bytes)
    }()
}

extension HIDReportDescriptor {
    /// The parser's state as the items go by (6.2.2.7 global items, 6.2.2.8 local items).
    struct Parser {
        struct Globals {
            var usagePage: UInt16 = 0
            var logicalMinimum: Int32 = 0
            var logicalMaximum: Int32 = 0
            var logicalMaximumRaw: UInt32 = 0
            var logicalMaximumSize = 0
            var reportSize = 0
            var reportCount = 0
            var reportID: UInt8 = 0
        }

        struct Locals {
            var usages: [HIDUsage] = []
            var usageMinimum: (value: UInt32, size: Int)?
            var usageMaximum: (value: UInt32, size: Int)?
        }

        var globals = Globals()
        var stack: [Globals] = []
        var locals = Locals()
        var collectionDepth = 0
        var reports: [Report] = []
        var applicationUsages: [HIDUsage] = []
        var sawReportID = false
        var sawMainWithoutID = false

        mutating func parse(_ bytes: [UInt8]) throws(HIDDescriptorError) {
            var offset = 0
            while offset < bytes.count {
                let prefix = bytes[offset]
                if prefix == 0xFE {
                    // Long item: size, tag, data. None is defined; skipped whole.
                    guard offset + 2 < bytes.count else { throw .truncated(offset: offset) }
                    let size = Int(bytes[offset + 1])
                    guard offset + 3 + size <= bytes.count else { throw .truncated(offset: offset) }
                    offset += 3 + size
                    continue
                }
                let size = [0, 1, 2, 4][Int(prefix & 0x03)]
                guard offset + 1 + size <= bytes.count else { throw .truncated(offset: offset) }
                var value: UInt32 = 0
                for i in 0..<size { value |= UInt32(bytes[offset + 1 + i]) << (8 * UInt32(i)) }
                let tag = prefix >> 4
                switch (prefix >> 2) & 0x03 {
                case 0: try main(tag, value, offset: offset)
                case 1: try global(tag, value, size: size, offset: offset)
                case 2: try local(tag, value, size: size, offset: offset)
                default: throw .reservedItem(offset: offset)
                }
                offset += 1 + size
            }
            guard collectionDepth == 0 else { throw .unbalancedCollections(offset: bytes.count) }
            if sawReportID, sawMainWithoutID {
                throw .invalid(offset: bytes.count, "some reports have a report ID and some have none")
            }
            for report in reports where report.bitLength > 512 * 8 {
                throw .reportTooLarge(reportID: report.id, bits: report.bitLength)
            }
        }

        /// A signed value of `size` bytes (two's complement), as logical and physical extents are.
        static func signed(_ value: UInt32, size: Int) -> Int32 {
            switch size {
            case 1: Int32(Int8(truncatingIfNeeded: value))
            case 2: Int32(Int16(truncatingIfNeeded: value))
            default: Int32(bitPattern: value)
            }
        }

        mutating func global(_ tag: UInt8, _ value: UInt32, size: Int, offset: Int) throws(HIDDescriptorError) {
            switch tag {
            case 0x0: globals.usagePage = UInt16(truncatingIfNeeded: value)
            case 0x1:
                globals.logicalMinimum = Self.signed(value, size: size)
            case 0x2:
                globals.logicalMaximum = Self.signed(value, size: size)
                globals.logicalMaximumRaw = value
                globals.logicalMaximumSize = size
            case 0x3, 0x4, 0x5, 0x6: break  // physical extents, unit exponent, unit: not needed for events
            case 0x7:
                guard (1...256).contains(value) else { throw .invalid(offset: offset, "Report Size \(value) is outside 1...256") }
                globals.reportSize = Int(value)
            case 0x8:
                guard (1...255).contains(value) else { throw .invalid(offset: offset, "Report ID \(value) is outside 1...255") }
                globals.reportID = UInt8(value)
                sawReportID = true
            case 0x9:
                guard value <= 4096 else { throw .invalid(offset: offset, "Report Count \(value) is more than 4096") }
                globals.reportCount = Int(value)
            case 0xA:
                guard stack.count < 16 else { throw .invalid(offset: offset, "Push deeper than 16") }
                stack.append(globals)
            case 0xB:
                guard let top = stack.popLast() else { throw .invalid(offset: offset, "Pop with nothing pushed") }
                globals = top
            default:
                throw .invalid(offset: offset, "global item tag 0x\(String(tag, radix: 16)) is reserved")
            }
        }

        mutating func local(_ tag: UInt8, _ value: UInt32, size: Int, offset: Int) throws(HIDDescriptorError) {
            switch tag {
            case 0x0: locals.usages.append(usage(value, size: size))
            case 0x1: locals.usageMinimum = (value, size)
            case 0x2: locals.usageMaximum = (value, size)
            default: break  // designators, strings, delimiters: not needed for events
            }
            if locals.usages.count > HIDReportDescriptor.maximumUsages {
                throw .invalid(offset: offset, "more than \(HIDReportDescriptor.maximumUsages) usages")
            }
        }

        /// A 4-byte usage carries its own page in its high half (extended usage).
        func usage(_ value: UInt32, size: Int) -> HIDUsage {
            size == 4 ? HIDUsage(page: UInt16(value >> 16), id: UInt16(value & 0xFFFF))
                : HIDUsage(page: globals.usagePage, id: UInt16(truncatingIfNeeded: value))
        }

        /// The usages the locals give: each Usage, then the Usage Minimum...Maximum range.
        func expandedUsages(offset: Int) throws(HIDDescriptorError) -> [HIDUsage] {
            var usages = locals.usages
            switch (locals.usageMinimum, locals.usageMaximum) {
            case (nil, nil):
                break
            case let (minimum?, maximum?):
                let low = usage(minimum.value, size: minimum.size), high = usage(maximum.value, size: maximum.size)
                guard low.page == high.page, low.id <= high.id else {
                    throw .invalid(offset: offset, "Usage Maximum \(high) is below Usage Minimum \(low)")
                }
                guard Int(high.id) - Int(low.id) < HIDReportDescriptor.maximumUsages else {
                    throw .invalid(offset: offset, "usage range \(low)...\(high) is too large")
                }
                usages += (low.id...high.id).map { HIDUsage(page: low.page, id: $0) }
            default:
                throw .invalid(offset: offset, "a Usage Minimum without a Usage Maximum, or the reverse")
            }
            return usages
        }

        mutating func main(_ tag: UInt8, _ value: UInt32, offset: Int) throws(HIDDescriptorError) {
            switch tag {
            case 0x8, 0x9, 0xB:
                let kind: ReportKind = tag == 0x8 ? .input : tag == 0x9 ? .output : .feature
                try addField(kind, flags: value, offset: offset)
            case 0xA:
                // A top-level application collection names the device (its first usage).
                if collectionDepth == 0, value & 0xFF == 0x01, let first = try expandedUsages(offset: offset).first {
                    applicationUsages.append(first)
                }
                collectionDepth += 1
                guard collectionDepth <= 64 else { throw .invalid(offset: offset, "collections nested deeper than 64") }
            case 0xC:
                guard collectionDepth > 0 else { throw .unbalancedCollections(offset: offset) }
                collectionDepth -= 1
            default:
                throw .invalid(offset: offset, "main item tag 0x\(String(tag, radix: 16)) is reserved")
            }
            locals = Locals()
        }

        mutating func addField(_ kind: ReportKind, flags: UInt32, offset: Int) throws(HIDDescriptorError) {
            guard globals.reportSize > 0 else { throw .invalid(offset: offset, "\(kind) before any Report Size") }
            let constant = flags & 0x01 != 0
            let variable = flags & 0x02 != 0
            if !constant, globals.reportSize > 32 {
                throw .invalid(offset: offset, "a data field of \(globals.reportSize) bits (at most 32)")
            }
            if globals.reportID == 0 { sawMainWithoutID = true }
            let minimum = globals.logicalMinimum
            var maximum = globals.logicalMaximum
            // A maximum written unsigned (0xFF for 255) when the minimum is not negative.
            if minimum >= 0, maximum < minimum, globals.logicalMaximumSize < 4 { maximum = Int32(globals.logicalMaximumRaw) }
            if !constant, maximum < minimum {
                throw .invalid(offset: offset, "Logical Maximum \(maximum) is below Logical Minimum \(minimum)")
            }
            let usages = try expandedUsages(offset: offset)
            let index = reports.firstIndex { $0.id == globals.reportID && $0.kind == kind } ?? {
                reports.append(Report(id: globals.reportID, kind: kind, fields: [], bitLength: 0))
                return reports.count - 1
            }()
            let field = Field(bitOffset: reports[index].bitLength, size: globals.reportSize, count: globals.reportCount,
                              isConstant: constant, isVariable: variable, isRelative: flags & 0x04 != 0,
                              logicalMinimum: minimum, logicalMaximum: maximum, usages: usages)
            reports[index].fields.append(field)
            reports[index].bitLength += globals.reportSize * globals.reportCount
            if reports[index].bitLength > 512 * 8 {
                throw .reportTooLarge(reportID: globals.reportID, bits: reports[index].bitLength)
            }
        }
    }
}
