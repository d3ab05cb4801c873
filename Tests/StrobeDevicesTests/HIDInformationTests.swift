import Testing

import StrobeDevices

/// HID Information and Device Information values as devices send them, and what is wrong with
/// the ones a device gets wrong.
@Suite struct HIDInformationTests {
    @Test func hidInformationDecodesVersionCountryAndFlags() throws {
        let information = try HIDInformation(decoding: [0x11, 0x01, 0x21, 0x03])
        #expect(information.version == 0x0111)
        #expect(information.countryCode == 0x21)
        #expect(information.remoteWake && information.normallyConnectable)
        #expect(information.description == "HID 1.11")
        #expect(information.encoded == [0x11, 0x01, 0x21, 0x03])
        #expect(try HIDInformation(decoding: [0x00, 0x10, 0x00, 0x00]).description == "HID 10.00")
        #expect(try !HIDInformation(decoding: [0x00, 0x01, 0x00, 0x02]).remoteWake)
    }

    @Test(arguments: [[], [0x11, 0x01, 0x00], [0x11, 0x01, 0x00, 0x02, 0x00]] as [[UInt8]])
    func hidInformationOfAnotherLengthIsATypedError(bytes: [UInt8]) {
        #expect(throws: HIDError.malformedInformation(length: bytes.count)) { try HIDInformation(decoding: bytes) }
    }

    @Test func pnpIDIsSevenLittleEndianBytes() {
        let id = DeviceInformation.PnPID(decoding: [0x02, 0x6B, 0x1D, 0x46, 0x02, 0x10, 0x01])
        #expect(id == DeviceInformation.PnPID(vendorIDSource: 2, vendorID: 0x1D6B, productID: 0x0246, productVersion: 0x0110))
        #expect(id?.encoded == [0x02, 0x6B, 0x1D, 0x46, 0x02, 0x10, 0x01])
        #expect(DeviceInformation.PnPID(decoding: [0x02, 0x6B, 0x1D, 0x46, 0x02, 0x10]) == nil)
        #expect(DeviceInformation.PnPID(decoding: [UInt8](repeating: 0, count: 8)) == nil)
    }

    /// Names are printed: an escape sequence or invalid UTF-8 from the peer does not reach the terminal.
    @Test func stringsFromThePeerArePrintable() {
        #expect(DeviceInformation.printable(Array("AB Shutter3".utf8)) == "AB Shutter3")
        #expect(DeviceInformation.printable([0x41, 0x1B, 0x5B, 0x32, 0x4A, 0x0A, 0xFF]) == "A\u{FFFD}[2J\u{FFFD}\u{FFFD}")
    }

    @Test func descriptionNamesWhatThereIs() {
        #expect(DeviceInformation(manufacturerName: "Acme", modelNumber: "R1").description == "Acme R1")
        #expect(DeviceInformation(modelNumber: "R1").description == "R1")
        #expect(DeviceInformation().description == "")
    }
}
