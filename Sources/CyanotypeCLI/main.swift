import Foundation

// Writing to a closed pipe (`cyanotype ... -o - | head`) must end quietly, not with SIGPIPE noise.
signal(SIGPIPE, SIG_IGN)
exit(CLI.main(Array(CommandLine.arguments.dropFirst())))
