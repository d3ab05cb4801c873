import Testing
import StrobeDevices

/// The report descriptor parser on descriptors devices ship, and on broken ones.
struct HIDReportDescriptorTests {
    /// The boot keyboard of the HID 1.11 specification, Appendix B.1.
    @Test func bootKeyboard() throws {
        let descriptor = HIDReportDescriptor.bootKeyboard
        #expect(descriptor.applicationUsages == [HIDUsage(page: 0x01, id: 0x06)])
        let input = try #require(descriptor.inputReport(id: 0))
        #expect(input.byteLength == 8)
        #expect(input.fields.map(\.bitOffset) == [0, 8, 16])
        let output = try #require(descriptor.reports.first { $0.kind == .output })
        #expect(output.bitLength == 8)
        // Left Shift and "a", then "b" too (two slots), reserved byte ignored.
        let active = try input.activeUsages(in: [0x02, 0xFF, 0x04, 0x05, 0, 0, 0, 0])
        #expect(active == [.keyboard(0xE1), .keyboard(0x04), .keyboard(0x05)])
        // Nothing down: no usage active; ErrorRollOver (0x01) reads as that usage.
        #expect(try input.activeUsages(in: [UInt8](repeating: 0, count: 8)).isEmpty)
        #expect(try input.activeUsages(in: [0, 0, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01]) == [.keyboard(0x01)])
        #expect(throws: HIDReportError.tooShort(reportID: 0, expected: 8, got: 3)) { try input.usages(in: [0, 0, 0]) }
    }

    /// A consumer-control volume button with a report ID (as published in the USB HID report
    /// utility of japawBlob/B4M38KRP-semproj, `usb_report_util/volume2.h`).
    @Test func consumerControlRemote() throws {
        let bytes: [UInt8] = [0x05, 0x0C, 0xA1, 0x01, 0x85, 0x03, 0x09, 0xE9, 0x15, 0x00, 0x25, 0x01, 0x75, 0x08, 0x95, 0x01,
                              0x81, 0x02, 0xC0]
        let descriptor = try HIDReportDescriptor(parsing: bytes)
        #expect(descriptor.inputReports.map(\.id) == [3])
        let report = try #require(descriptor.inputReport(id: 3))
        #expect(try report.usages(in: [0x01]) == [HIDUsageValue(usage: .volumeUp, value: 1)])
        #expect(try report.usages(in: [0x00]) == [HIDUsageValue(usage: .volumeUp, value: 0)])
        #expect(descriptor.inputReport(id: 1) == nil)
    }

    /// The mouse, keyboard and consumer-control Report Map of the HID-over-GATT device examples
    /// in TI's and Espressif's BLE SDKs (as in `hid_device_le_prf.c`): three report IDs,
    /// 4-bit arrays, a 2-bit relative field with a negative minimum, padding.
    static let composite: [UInt8] = [
        0x05, 0x01, 0x09, 0x02, 0xA1, 0x01, 0x85, 0x01, 0x09, 0x01, 0xA1, 0x00, 0x05, 0x09, 0x19, 0x01,
        0x29, 0x03, 0x15, 0x00, 0x25, 0x01, 0x75, 0x01, 0x95, 0x03, 0x81, 0x02, 0x75, 0x05, 0x95, 0x01,
        0x81, 0x01, 0x05, 0x01, 0x09, 0x30, 0x09, 0x31, 0x09, 0x38, 0x15, 0x81, 0x25, 0x7F, 0x75, 0x08,
        0x95, 0x03, 0x81, 0x06, 0xC0, 0xC0,
        0x05, 0x01, 0x09, 0x06, 0xA1, 0x01, 0x85, 0x02, 0x05, 0x07, 0x19, 0xE0, 0x29, 0xE7, 0x15, 0x00,
        0x25, 0x01, 0x75, 0x01, 0x95, 0x08, 0x81, 0x02, 0x95, 0x01, 0x75, 0x08, 0x81, 0x01, 0x95, 0x05,
        0x75, 0x01, 0x05, 0x08, 0x19, 0x01, 0x29, 0x05, 0x91, 0x02, 0x95, 0x01, 0x75, 0x03, 0x91, 0x01,
        0x95, 0x06, 0x75, 0x08, 0x15, 0x00, 0x25, 0x65, 0x05, 0x07, 0x19, 0x00, 0x29, 0x65, 0x81, 0x00,
        0xC0,
        0x05, 0x0C, 0x09, 0x01, 0xA1, 0x01, 0x85, 0x03, 0x09, 0x02, 0xA1, 0x02, 0x05, 0x09, 0x19, 0x01,
        0x29, 0x0A, 0x15, 0x01, 0x25, 0x0A, 0x75, 0x04, 0x95, 0x01, 0x81, 0x00, 0xC0, 0x05, 0x0C, 0x09,
        0x86, 0x15, 0xFF, 0x25, 0x01, 0x75, 0x02, 0x95, 0x01, 0x81, 0x46, 0x09, 0xE9, 0x09, 0xEA, 0x15,
        0x00, 0x75, 0x01, 0x95, 0x02, 0x81, 0x02, 0x09, 0xE2, 0x09, 0x30, 0x09, 0x83, 0x09, 0x81, 0x09,
        0xB0, 0x09, 0xB1, 0x09, 0xB2, 0x09, 0xB3, 0x09, 0xB4, 0x09, 0xB5, 0x09, 0xB6, 0x09, 0xB7, 0x15,
        0x01, 0x25, 0x0C, 0x75, 0x04, 0x95, 0x01, 0x81, 0x00, 0x09, 0x80, 0xA1, 0x02, 0x05, 0x09, 0x19,
        0x01, 0x29, 0x03, 0x15, 0x01, 0x25, 0x03, 0x75, 0x02, 0x81, 0x00, 0xC0, 0x81, 0x03, 0xC0,
    ]

    @Test func compositeMouseKeyboardConsumer() throws {
        let descriptor = try HIDReportDescriptor(parsing: Self.composite)
        #expect(descriptor.applicationUsages == [HIDUsage(page: 0x01, id: 0x02), HIDUsage(page: 0x01, id: 0x06), .consumer(0x01)])
        #expect(descriptor.inputReports.map(\.id) == [1, 2, 3])
        #expect(descriptor.inputReports.map(\.byteLength) == [4, 8, 2])

        // Mouse: button 1, X -3, Y +5, wheel -1.
        let mouse = try #require(descriptor.inputReport(id: 1))
        let moved = try mouse.usages(in: [0x01, 0xFD, 0x05, 0xFF])
        #expect(moved.contains(HIDUsageValue(usage: HIDUsage(page: 0x09, id: 1), value: 1)))
        #expect(moved.contains(HIDUsageValue(usage: HIDUsage(page: 0x01, id: 0x30), value: -3)))
        #expect(moved.contains(HIDUsageValue(usage: HIDUsage(page: 0x01, id: 0x31), value: 5)))
        #expect(moved.contains(HIDUsageValue(usage: HIDUsage(page: 0x01, id: 0x38), value: -1)))

        // Keyboard: Enter.
        let keyboard = try #require(descriptor.inputReport(id: 2))
        #expect(try keyboard.activeUsages(in: [0, 0, 0x28, 0, 0, 0, 0, 0]) == [.enter])

        // Consumer: bits 0-3 numeric pad (array, 1...10), 4-5 channel (-1...1), 6 volume up,
        // 7 volume down, 8-11 the 12 transport keys (array, 1...12), 12-13 selection, 14-15 padding.
        let consumer = try #require(descriptor.inputReport(id: 3))
        #expect(try consumer.activeUsages(in: [0x40, 0x00]) == [.volumeUp])
        #expect(try consumer.activeUsages(in: [0x80, 0x00]) == [.volumeDown])
        // Play is the fifth of the transport keys (index 5, logical minimum 1).
        #expect(try consumer.activeUsages(in: [0x00, 0x05]) == [.consumer(0xB0)])
        // Channel -1 (0b11 in two bits, sign-extended), button 3 on the numeric pad.
        let values = try consumer.usages(in: [0x33, 0x00])
        #expect(values.contains(HIDUsageValue(usage: .consumer(0x86), value: -1)))
        #expect(values.contains(HIDUsageValue(usage: HIDUsage(page: 0x09, id: 3), value: 1)))
        #expect(try consumer.activeUsages(in: [0x00, 0x00]).isEmpty)
    }

    struct Broken: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var error: HIDDescriptorError
        var testDescription: String { name }
    }

    static let broken: [Broken] = [
        Broken(name: "item cut short", bytes: [0x05, 0x01, 0x26, 0xFF], error: .truncated(offset: 2)),
        Broken(name: "long item cut short", bytes: [0xFE, 0x05, 0x00, 0x01], error: .truncated(offset: 0)),
        Broken(name: "reserved item type", bytes: [0x0C], error: .reservedItem(offset: 0)),
        Broken(name: "collection never ended", bytes: [0x05, 0x0C, 0x09, 0x01, 0xA1, 0x01], error: .unbalancedCollections(offset: 6)),
        Broken(name: "end collection with none open", bytes: [0xC0], error: .unbalancedCollections(offset: 0)),
        Broken(name: "pop without push", bytes: [0xB4], error: .invalid(offset: 0, "Pop with nothing pushed")),
        Broken(name: "report ID 0", bytes: [0x85, 0x00], error: .invalid(offset: 0, "Report ID 0 is outside 1...255")),
        Broken(name: "input before a report size", bytes: [0x95, 0x01, 0x81, 0x02], error: .invalid(offset: 2, "input before any Report Size")),
        Broken(name: "usage maximum below minimum", bytes: [0x05, 0x07, 0x19, 0x10, 0x29, 0x01, 0x75, 0x08, 0x95, 0x01, 0x81, 0x00],
               error: .invalid(offset: 10, "Usage Maximum keyboard:0x0001 is below Usage Minimum keyboard:0x0010")),
        Broken(name: "usage minimum alone", bytes: [0x19, 0x01, 0x75, 0x01, 0x95, 0x01, 0x81, 0x02],
               error: .invalid(offset: 6, "a Usage Minimum without a Usage Maximum, or the reverse")),
        Broken(name: "logical maximum below minimum", bytes: [0x15, 0x05, 0x25, 0x01, 0x75, 0x08, 0x95, 0x01, 0x81, 0x02],
               error: .invalid(offset: 8, "Logical Maximum 1 is below Logical Minimum 5")),
        Broken(name: "a 64-bit data field", bytes: [0x75, 0x40, 0x95, 0x01, 0x81, 0x02],
               error: .invalid(offset: 4, "a data field of 64 bits (at most 32)")),
        Broken(name: "a report over 512 bytes", bytes: [0x75, 0x08, 0x96, 0x01, 0x02, 0x81, 0x01],
               error: .reportTooLarge(reportID: 0, bits: 4104)),
        Broken(name: "reports with and without IDs", bytes: [0x75, 0x08, 0x95, 0x01, 0x81, 0x01, 0x85, 0x01, 0x81, 0x01],
               error: .invalid(offset: 10, "some reports have a report ID and some have none")),
        Broken(name: "a hostile usage range", bytes: [0x1A, 0x00, 0x00, 0x2A, 0xFF, 0xFF, 0x75, 0x01, 0x95, 0x01, 0x81, 0x00],
               error: .invalid(offset: 10, "usage range page 0x0000:0x0000...page 0x0000:0xffff is too large")),
    ]

    @Test(arguments: broken)
    func brokenDescriptorsAreTypedErrors(_ broken: Broken) {
        #expect(throws: broken.error) { try HIDReportDescriptor(parsing: broken.bytes) }
    }

    @Test func everyPrefixOfARealDescriptorParsesOrFailsCleanly() {
        for length in 0...Self.composite.count {
            _ = try? HIDReportDescriptor(parsing: Array(Self.composite.prefix(length)))
        }
    }

    @Test func usagesPrintAndParse() {
        #expect(HIDUsage.volumeUp.description == "consumer:0x00e9")
        #expect(HIDUsage("consumer:0x00e9") == .volumeUp)
        #expect(HIDUsage("keyboard:0x28") == .enter)
        #expect(HIDUsage("0xff00:0x0001") == HIDUsage(page: 0xFF00, id: 1))
        #expect(HIDUsage("volume") == nil)
    }
}
