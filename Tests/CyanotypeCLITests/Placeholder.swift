import Testing

@Test func cliPlaceholder() {}
