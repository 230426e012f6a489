import Foundation
import Testing

/// Unicode's and CLDR's data files, from Debian's unicode-data and unicode-cldr-core packages
/// (`.ci/run` installs both). Tests that compare with them print a SKIPPED line and pass when a
/// file is missing, unless `SORTKIT_REQUIRE_UNICODE_DATA=1` (as in CI) makes that a failure.
public enum DataFiles {
    /// `UNICODE_DATA`, or Debian's folder.
    public static let unicode = ProcessInfo.processInfo.environment["UNICODE_DATA"] ?? "/usr/share/unicode"
    /// `CLDR_DATA`, or Debian's folder.
    public static let cldr = ProcessInfo.processInfo.environment["CLDR_DATA"] ?? "/usr/share/unicode/cldr/common"

    /// The text of `folder/name`; `nil` (after the SKIPPED line or the recorded issue) when it
    /// is missing. `required: false` files (a language's alphabet) may be missing quietly.
    public static func text(_ name: String, in folder: String, package: String, required: Bool = true) -> String? {
        let path = folder + "/" + name
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            guard required else { return nil }
            if ProcessInfo.processInfo.environment["SORTKIT_REQUIRE_UNICODE_DATA"] == "1" {
                Issue.record("\(path) not found but SORTKIT_REQUIRE_UNICODE_DATA=1 (apt-get install \(package))")
            } else {
                print("SKIPPED \(name) checks: \(path) not found (apt-get install \(package); .ci/run installs it)")
            }
            return nil
        }
        return text
    }
}
