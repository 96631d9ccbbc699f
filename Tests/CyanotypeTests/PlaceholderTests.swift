import Testing
@testable import Cyanotype
@Test func placeholder() {}
