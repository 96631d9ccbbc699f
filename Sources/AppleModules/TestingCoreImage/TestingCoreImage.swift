// swift-testing declares a cross-import overlay `_Testing_CoreImage` for files that import both
// Testing and CoreImage (on Apple's platforms it makes images test attachments). On Linux the
// toolchain has none, so this empty module stands in: test files with Apple's import lines
// compile. It declares nothing.
