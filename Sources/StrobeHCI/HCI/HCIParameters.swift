/// A value one HCI parameter field holds, little-endian on the wire (Core Vol 4, Part E, 5.2):
/// how it is written, read and shown.
package protocol HCIFieldValue {
    func write(into writer: inout ByteWriter)
    static func read(_ reader: inout HCIFieldReader, field: String) throws(HCIError) -> Self
    /// As a capture shows it.
    var fieldText: String { get }
}

/// A command's or an event's parameters, described once (`walkParameters`) for its encoder,
/// its decoder and a capture's viewer.
package protocol HCIParameters: Sendable, Hashable {
    /// Parameters whose fields a decoder then fills in.
    init()

    /// Walks the parameters in wire order (Core Vol 4, Part E, 7).
    mutating func walkParameters<Walker: HCIParameterWalker>(_ walker: inout Walker) throws(Walker.Failure)
}

extension HCIParameters {
    /// The parameters as the walk writes them.
    package var encodedParameters: [UInt8] {
        var copy = self
        var writer = HCIParameterWriter(ByteWriter(capacity: 32))
        copy.walkParameters(&writer)
        return writer.writer.bytes
    }

    /// The parameters from `bytes`: a short field or a value out of range is
    /// `HCIError.malformed`, named for `packet`, and so is a byte left over unless `extensible`
    /// (an event: a later version of the specification may append parameters, which a host
    /// ignores).
    package init(decoding bytes: UnsafeRawBufferPointer, packet: String, extensible: Bool = false) throws(HCIError) {
        self.init()
        var reader = HCIParameterReader(bytes, packet: packet)
        try walkParameters(&reader)
        if !extensible { try reader.finish() }
    }
}

/// Walks a command's or an event's parameters in wire order: the one description of a packet,
/// which its encoder (`HCIParameterWriter`, also what the simulated controller sends events
/// with), its decoder (`HCIParameterReader`, what the host reads events and the simulated
/// controller reads commands with) and a capture's viewer (`HCIParameterDescriber`) all
/// follow. A walk may branch on a field it has walked (the per-PHY sets after a PHY mask).
package protocol HCIParameterWalker {
    associatedtype Failure: Error
    mutating func field<Value: HCIFieldValue>(_ name: String, _ value: inout Value) throws(Failure)
    /// A three-octet number (advertising intervals).
    mutating func uint24(_ name: String, _ value: inout UInt32) throws(Failure)
    /// A 16-octet key: never shown, only its length.
    mutating func key(_ name: String, _ value: inout [UInt8]) throws(Failure)
    /// `<name>_Length` (one octet, at most `maximum` when given) then the data, zero-padded to
    /// `maximum` octets when `padded` (legacy advertising data).
    mutating func data(_ name: String, _ value: inout [UInt8], maximum: Int?, padded: Bool) throws(Failure)
    /// A field this stack always sends with one value (an operation, a count of sets): a reader
    /// refuses another value, a capture shows what is there.
    mutating func constant<Value: HCIFieldValue & Equatable>(_ name: String, _ value: Value) throws(Failure)
    /// The rest of the packet (a command's return parameters).
    mutating func rest(_ name: String, _ value: inout [UInt8]) throws(Failure)
    /// `countName` (one octet), then that many groups of fields one after another.
    mutating func list<Element: HCIParameters>(_ countName: String, _ elements: inout [Element]) throws(Failure)
}

extension HCIParameterWalker {
    package mutating func data(_ name: String, _ value: inout [UInt8], maximum: Int? = nil) throws(Failure) {
        try data(name, &value, maximum: maximum, padded: false)
    }
}

/// Writes the fields walked: a command's encoder.
package struct HCIParameterWriter: HCIParameterWalker {
    package typealias Failure = Never
    package var writer: ByteWriter

    package init(_ writer: ByteWriter) { self.writer = writer }

    package mutating func field<Value: HCIFieldValue>(_ name: String, _ value: inout Value) {
        value.write(into: &writer)
    }

    package mutating func uint24(_ name: String, _ value: inout UInt32) {
        for shift in [0, 8, 16] { writer.write(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    package mutating func key(_ name: String, _ value: inout [UInt8]) {
        // A key of another length is a bug upstream: zeros encrypt nothing anyone can read.
        writer.write(contentsOf: value.count == 16 ? value : [UInt8](repeating: 0, count: 16))
    }

    package mutating func data(_ name: String, _ value: inout [UInt8], maximum: Int?, padded: Bool) {
        writer.write(UInt8(truncatingIfNeeded: value.count))
        writer.write(contentsOf: value)
        if padded, let maximum { writer.write(contentsOf: repeatElement(UInt8(0), count: max(0, maximum - value.count))) }
    }

    package mutating func constant<Value: HCIFieldValue & Equatable>(_ name: String, _ value: Value) {
        value.write(into: &writer)
    }

    package mutating func rest(_ name: String, _ value: inout [UInt8]) {
        writer.write(contentsOf: value)
    }

    package mutating func list<Element: HCIParameters>(_ countName: String, _ elements: inout [Element]) {
        writer.write(UInt8(truncatingIfNeeded: elements.count))
        for index in elements.indices { elements[index].walkParameters(&self) }
    }
}

/// Reads the fields walked from a command's parameters: its decoder. A short field, a length
/// over what follows or a value out of its type's range is `HCIError.malformed`.
package struct HCIParameterReader: HCIParameterWalker {
    package typealias Failure = HCIError
    package var reader: HCIFieldReader

    package init(_ parameters: UnsafeRawBufferPointer, packet: String) {
        reader = HCIFieldReader(parameters, packet: packet)
    }

    /// The walk is over: a byte left over is malformed.
    package func finish() throws(HCIError) {
        let left = reader.remaining
        guard left == 0 else { throw reader.malformed("\(left) byte\(left == 1 ? "" : "s") after the last parameter") }
    }

    package mutating func field<Value: HCIFieldValue>(_ name: String, _ value: inout Value) throws(HCIError) {
        value = try Value.read(&reader, field: name)
    }

    package mutating func uint24(_ name: String, _ value: inout UInt32) throws(HCIError) {
        let bytes = try reader.view(name, count: 3)
        value = UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16
    }

    package mutating func key(_ name: String, _ value: inout [UInt8]) throws(HCIError) {
        value = try reader.bytes(name, count: 16)
    }

    package mutating func data(_ name: String, _ value: inout [UInt8], maximum: Int?, padded: Bool) throws(HCIError) {
        let length = Int(try reader.u8("\(name)_Length"))
        if let maximum, length > maximum {
            throw reader.malformed("\(reader.named("\(name)_Length")) is \(length), more than \(maximum)")
        }
        value = try reader.bytes(name, count: length)
        if padded, let maximum { _ = try reader.view("\(name) padding", count: maximum - length) }
    }

    package mutating func constant<Value: HCIFieldValue & Equatable>(_ name: String, _ value: Value) throws(HCIError) {
        let read = try Value.read(&reader, field: name)
        guard read == value else { throw reader.malformed("\(reader.named(name)) is \(read.fieldText), not \(value.fieldText)") }
    }

    package mutating func rest(_ name: String, _ value: inout [UInt8]) {
        value = Array(reader.rest())
    }

    package mutating func list<Element: HCIParameters>(_ countName: String, _ elements: inout [Element]) throws(HCIError) {
        let count = Int(try reader.u8(countName))
        elements = []
        elements.reserveCapacity(count)
        defer { reader.element = nil }
        for i in 0..<count {
            reader.element = i
            var element = Element()
            try element.walkParameters(&self)
            elements.append(element)
        }
    }
}

/// Reads the fields walked and keeps each as text, named as the Core Specification names it:
/// what a capture shows of a command. Keys show their length only.
package struct HCIParameterDescriber: HCIParameterWalker {
    package typealias Failure = HCIError
    package private(set) var fields: [(name: String, value: String)] = []
    private var reader: HCIParameterReader
    private var index: String { reader.reader.element.map { "[\($0)]" } ?? "" }

    package init(_ parameters: UnsafeRawBufferPointer, packet: String) {
        reader = HCIParameterReader(parameters, packet: packet)
    }

    /// The walk is over: a byte left over is malformed.
    package func finish() throws(HCIError) { try reader.finish() }

    /// Bytes after the walk (appended by a later version of the specification, in a reply).
    package var remaining: Int { reader.reader.remaining }

    package mutating func field<Value: HCIFieldValue>(_ name: String, _ value: inout Value) throws(HCIError) {
        try reader.field(name, &value)
        fields.append((name + index, value.fieldText))
    }

    package mutating func uint24(_ name: String, _ value: inout UInt32) throws(HCIError) {
        try reader.uint24(name, &value)
        fields.append((name + index, hexText(value, digits: 6)))
    }

    package mutating func key(_ name: String, _ value: inout [UInt8]) throws(HCIError) {
        try reader.key(name, &value)
        fields.append((name + index, "(\(value.count)-byte key, not shown)"))
    }

    package mutating func data(_ name: String, _ value: inout [UInt8], maximum: Int?, padded: Bool) throws(HCIError) {
        try reader.data(name, &value, maximum: maximum, padded: padded)
        fields.append(("\(name)_Length" + index, hexText(value.count, digits: 2)))
        fields.append((name + index, hexBytes(value)))
    }

    package mutating func constant<Value: HCIFieldValue & Equatable>(_ name: String, _ value: Value) throws(HCIError) {
        var read = value
        try reader.field(name, &read)
        fields.append((name + index, read.fieldText))
    }

    package mutating func rest(_ name: String, _ value: inout [UInt8]) {
        reader.rest(name, &value)
        fields.append((name + index, hexBytes(value)))
    }

    package mutating func list<Element: HCIParameters>(_ countName: String, _ elements: inout [Element]) throws(HCIError) {
        var count = UInt8(0)
        try field(countName, &count)
        elements = []
        defer { reader.reader.element = nil }
        for i in 0..<Int(count) {
            reader.reader.element = i
            var element = Element()
            try element.walkParameters(&self)
            elements.append(element)
        }
    }
}

/// Notes whether a walk passes a key: a command that carries one is never shown raw.
package struct HCIKeyFinder: HCIParameterWalker {
    package typealias Failure = Never
    package private(set) var foundKey = false
    package init() {}
    package mutating func field<Value: HCIFieldValue>(_ name: String, _ value: inout Value) {}
    package mutating func uint24(_ name: String, _ value: inout UInt32) {}
    package mutating func key(_ name: String, _ value: inout [UInt8]) { foundKey = true }
    package mutating func data(_ name: String, _ value: inout [UInt8], maximum: Int?, padded: Bool) {}
    package mutating func constant<Value: HCIFieldValue & Equatable>(_ name: String, _ value: Value) {}
    package mutating func rest(_ name: String, _ value: inout [UInt8]) {}
    package mutating func list<Element: HCIParameters>(_ countName: String, _ elements: inout [Element]) {
        var blank = Element()
        blank.walkParameters(&self)
    }
}

/// Bytes in order as lower-case hex pairs, `(empty)` for none.
package func hexBytes(_ bytes: [UInt8]) -> String {
    bytes.isEmpty ? "(empty)" : bytes.map { ($0 < 0x10 ? "0" : "") + String($0, radix: 16) }.joined()
}

/// `0x` and `digits` upper-case hex digits.
package func hexText(_ value: some BinaryInteger, digits: Int) -> String {
    let text = String(value, radix: 16, uppercase: true)
    return "0x" + String(repeating: "0", count: max(0, digits - text.count)) + text
}

// MARK: - Field values

extension UInt8: HCIFieldValue {
    package func write(into writer: inout ByteWriter) { writer.write(self) }
    package static func read(_ reader: inout HCIFieldReader, field: String) throws(HCIError) -> UInt8 { try reader.u8(field) }
    package var fieldText: String { hexText(self, digits: 2) }
}

extension Int8: HCIFieldValue {
    package func write(into writer: inout ByteWriter) { writer.write(self) }
    package static func read(_ reader: inout HCIFieldReader, field: String) throws(HCIError) -> Int8 { try reader.i8(field) }
    package var fieldText: String { hexText(UInt8(bitPattern: self), digits: 2) }
}

extension UInt16: HCIFieldValue {
    package func write(into writer: inout ByteWriter) { writer.write(self) }
    package static func read(_ reader: inout HCIFieldReader, field: String) throws(HCIError) -> UInt16 { try reader.u16(field) }
    package var fieldText: String { hexText(self, digits: 4) }
}

extension UInt64: HCIFieldValue {
    package func write(into writer: inout ByteWriter) { writer.write(self) }
    package static func read(_ reader: inout HCIFieldReader, field: String) throws(HCIError) -> UInt64 { try reader.u64(field) }
    package var fieldText: String { hexText(self, digits: 16) }
}

/// 0x00 false, 0x01 true; any other value is malformed.
extension Bool: HCIFieldValue {
    package func write(into writer: inout ByteWriter) { writer.write(UInt8(self ? 1 : 0)) }
    package static func read(_ reader: inout HCIFieldReader, field: String) throws(HCIError) -> Bool {
        switch try reader.u8(field) {
        case 0: return false
        case 1: return true
        case let other: throw reader.malformed("\(reader.named(field)) is \(hexText(other, digits: 2)), not 0x00 or 0x01")
        }
    }
    package var fieldText: String { self ? "0x01" : "0x00" }
}

extension BluetoothAddress: HCIFieldValue {
    package func write(into writer: inout ByteWriter) { writer.write(self) }
    package static func read(_ reader: inout HCIFieldReader, field: String) throws(HCIError) -> BluetoothAddress {
        try reader.address(field)
    }
    package var fieldText: String { description }
}

extension ConnectionHandle: HCIFieldValue {
    package func write(into writer: inout ByteWriter) { writer.write(rawValue) }
    package static func read(_ reader: inout HCIFieldReader, field: String) throws(HCIError) -> ConnectionHandle {
        try reader.connectionHandle(field)
    }
    package var fieldText: String { description }
}

/// A field that is its raw value on the wire, every value of which has a meaning to keep: a
/// code (a status, an address type, an opcode) or a set of bits (features, event properties).
package protocol HCIRawValueField: HCIFieldValue, RawRepresentable where RawValue: HCIFieldValue {
    init(rawValue: RawValue)
}

extension HCIRawValueField {
    package func write(into writer: inout ByteWriter) { rawValue.write(into: &writer) }
    package static func read(_ reader: inout HCIFieldReader, field: String) throws(HCIError) -> Self {
        Self(rawValue: try RawValue.read(&reader, field: field))
    }
    package var fieldText: String { rawValue.fieldText }
}

/// A one-octet code whose every value has a meaning to keep (a status, an address type).
package protocol HCIOctetField: HCIRawValueField where RawValue == UInt8 {}

extension LMPFeatures: HCIRawValueField {}

/// The 64-octet bit mask of Read Local Supported Commands.
extension HCISupportedCommands: HCIFieldValue {
    package func write(into writer: inout ByteWriter) { writer.write(contentsOf: octets) }
    package static func read(_ reader: inout HCIFieldReader, field: String) throws(HCIError) -> HCISupportedCommands {
        HCISupportedCommands(octets: try reader.bytes(field, count: 64))
    }
    package var fieldText: String { hexBytes(octets) }
}

extension HCIStatus: HCIOctetField {}
extension LEPHY: HCIOctetField {}
extension LEAddressType: HCIOctetField {}
extension LEOwnAddressType: HCIOctetField {}
extension LEAdvertisingType: HCIOctetField {}
extension LEPHYs: HCIOctetField {}

/// A one-octet code some of whose values are reserved: reading one of those is malformed.
package protocol HCIReservingOctetField: HCIFieldValue, RawRepresentable where RawValue == UInt8 {
    init?(rawValue: UInt8)
    /// The values allowed, as a malformed field's error names them.
    static var allowed: String { get }
}

extension HCIReservingOctetField {
    package func write(into writer: inout ByteWriter) { writer.write(rawValue) }
    package static func read(_ reader: inout HCIFieldReader, field: String) throws(HCIError) -> Self {
        let raw = try reader.u8(field)
        guard let value = Self(rawValue: raw) else {
            throw reader.malformed("\(reader.named(field)) is \(hexText(raw, digits: 2)), \(allowed)")
        }
        return value
    }
    package var fieldText: String { hexText(rawValue, digits: 2) }
}

extension LEScanType: HCIReservingOctetField {
    package static var allowed: String { "neither passive (0x00) nor active (0x01)" }
}

extension LEAdvertisingEventProperties: HCIRawValueField {}

extension HCIOpcode: HCIRawValueField {
    /// By name: `LE Set Scan Enable (0x200C)`.
    package var fieldText: String { description }
}

extension LEFeatures: HCIRawValueField {}

extension LERole: HCIReservingOctetField {
    package static var allowed: String { "neither central (0x00) nor peripheral (0x01)" }
}
