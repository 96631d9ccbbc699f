import Testing
@testable import CyanotypeCodecs
@Test func placeholder() {}
