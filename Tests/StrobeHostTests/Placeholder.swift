import Testing
@testable import StrobeHost

@Test func placeholderStrobeHostTests() { #expect(Bool(true)) }
