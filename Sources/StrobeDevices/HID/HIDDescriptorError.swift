/// Why a report descriptor (Report Map) could not be used. Names the item's offset.
package enum HIDDescriptorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An item's data runs past the end of the descriptor.
    case truncated(offset: Int)
    /// A short item of the reserved type (3).
    case reservedItem(offset: Int)
    /// An item whose value the spec does not allow here, and why.
    case invalid(offset: Int, String)
    /// A Collection never ended, or an End Collection with none open.
    case unbalancedCollections(offset: Int)
    /// A report too large to be a report (more than 512 bytes).
    case reportTooLarge(reportID: UInt8, bits: Int)

    /// A one-line message that names the problem and the item's offset or the report.
    package var description: String {
        switch self {
        case .truncated(let offset): "report descriptor item at offset \(offset) runs past the end"
        case .reservedItem(let offset): "report descriptor item at offset \(offset) has the reserved type"
        case .invalid(let offset, let why): "report descriptor item at offset \(offset): \(why)"
        case .unbalancedCollections(let offset): "report descriptor collections do not balance (offset \(offset))"
        case .reportTooLarge(let id, let bits): "report \(id) would be \(bits) bits, more than 512 bytes"
        }
    }
}

/// Why an input report could not be read with its descriptor.
package enum HIDReportError: Error, Sendable, Hashable, CustomStringConvertible {
    case tooShort(reportID: UInt8, expected: Int, got: Int)
    case unknownReport(UInt8)

    package var description: String {
        switch self {
        case .tooShort(let id, let expected, let got): "input report \(id) is \(got) bytes, its descriptor says \(expected)"
        case .unknownReport(let id): "the descriptor has no input report \(id)"
        }
    }
}
