import ArgumentParser

/// The `imago-fetch` executable: `imago fetch` runs it. Its one command is ``FetchCommand``.
@main
enum ImagoFetchMain {
    static func main() async {
        await FetchCommand.main()
    }
}
