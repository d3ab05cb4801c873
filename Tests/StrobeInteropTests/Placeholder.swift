import Testing
@testable import Strobe

@Test func placeholderStrobeInteropTests() { #expect(Bool(true)) }
