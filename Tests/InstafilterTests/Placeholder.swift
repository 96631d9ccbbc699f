import Testing
@testable import Instafilter

@Test func instafilterPlaceholder() {}
