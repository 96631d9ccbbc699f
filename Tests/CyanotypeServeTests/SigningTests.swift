@testable import CyanotypeServe
import Foundation
import Testing
