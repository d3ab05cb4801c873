import StrobeHCI

/// The fields of a decoded value (an event's or a PDU's struct), named as its properties are,
/// with byte arrays shown as hex: one field list for every type the stack decodes, without a
/// printer per type.
enum ReflectedFields {
    static func of(_ value: Any) -> [DecodedRecord.Field] {
        var fields: [DecodedRecord.Field] = []
        for child in Mirror(reflecting: value).children {
            guard let label = child.label else { continue }
            fields.append(DecodedRecord.Field(name: label, value: text(child.value)))
        }
        return fields
    }

    /// An enum case's payload, e.g. `.commandComplete(CommandCompleteEvent(...))`'s fields.
    static func ofCasePayload(_ value: Any) -> [DecodedRecord.Field] {
        guard let payload = Mirror(reflecting: value).children.first?.value else { return [] }
        let mirror = Mirror(reflecting: payload)
        switch mirror.displayStyle {
        case .struct: return of(payload)
        case .collection:
            // Lists (advertising reports, completed packets): a field per element.
            return mirror.children.enumerated().map { DecodedRecord.Field(name: "[\($0.offset)]", value: text($0.element.value)) }
        default: return [DecodedRecord.Field(name: "value", value: text(payload))]
        }
    }

    static func text(_ value: Any) -> String {
        if let bytes = value as? [UInt8] { return bytes.isEmpty ? "(empty)" : bytes.map(hex).joined() }
        if let optional = value as? OptionalDescribing { return optional.describedOrNone }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .collection {
            return "[" + mirror.children.map { text($0.value) }.joined(separator: "; ") + "]"
        }
        if let describable = value as? CustomStringConvertible { return describable.description }
        // A raw value wrapper (an event type, a flags field): its number.
        if mirror.children.count == 1, mirror.children.first?.label == "rawValue", let raw = mirror.children.first?.value {
            return "0x" + String(describing: raw).uppercased().hexFromDecimal
        }
        if mirror.displayStyle == .struct {
            return mirror.children.compactMap { child in child.label.map { "\($0) \(text(child.value))" } }.joined(separator: ", ")
        }
        return "\(value)"
    }

    static func hex(_ byte: UInt8) -> String { (byte < 0x10 ? "0" : "") + String(byte, radix: 16) }
}

extension String {
    /// A decimal integer's text as hex (the text unchanged when it is not one).
    fileprivate var hexFromDecimal: String {
        guard let number = UInt64(self) else { return self }
        return String(number, radix: 16, uppercase: true)
    }
}

/// `Optional` values print their wrapped value, or `none`.
private protocol OptionalDescribing {
    var describedOrNone: String { get }
}

extension Optional: OptionalDescribing {
    fileprivate var describedOrNone: String {
        switch self {
        case .some(let wrapped): ReflectedFields.text(wrapped)
        case .none: "none"
        }
    }
}
