import CyanotypeTool
import Foundation

// A closed standard input or output (`<&-`) must not be reused by the next file opened.
Console.reserveStandardDescriptors()

// Writing to a closed pipe (`cyanotype ... -o - | head`) must end quietly, not with SIGPIPE noise.
signal(SIGPIPE, SIG_IGN)
exit(CLI.main(Array(CommandLine.arguments.dropFirst())))
