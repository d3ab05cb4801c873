import Testing
@testable import StrobeHCI

@Test func placeholderStrobeHCITests() { #expect(Bool(true)) }
