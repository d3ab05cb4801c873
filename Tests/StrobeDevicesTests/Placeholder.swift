import Testing
@testable import StrobeDevices

@Test func placeholderDevices() { #expect(Bool(true)) }
