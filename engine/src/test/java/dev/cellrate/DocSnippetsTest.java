package dev.cellrate;

import org.junit.jupiter.api.Test;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every {@code java} block of the README and the docs compiles against the engine. Each block becomes the
 * body of a method of its own class; the names a snippet leaves to its reader (nowNs, a key, an event loop)
 * are declared once in {@link #PREAMBLE}, and a line of {@code ...} is elided. A block that elides a body
 * ({@code { ... }}) is an outline of a class to write, not code to run, and is skipped (and counted); so is a
 * block marked {@code <!-- snippet of the X module ... -->}, whose types are not on the engine's class path.
 */
final class DocSnippetsTest
{
    private static final String[] DOCUMENTS = {
        "README.md", "docs/keyed-table.md", "docs/shaper.md", "docs/windows-and-markers.md",
    };

    private static final String IMPORTS = String.join("\n",
        "import dev.cellrate.*;",
        "import dev.cellrate.composite.*;",
        "import dev.cellrate.concurrency.*;",
        "import dev.cellrate.reconfigure.*;",
        "import dev.cellrate.stat.*;",
        "import dev.cellrate.observe.*;",
        "import dev.cellrate.release.*;",
        "import dev.cellrate.table.*;",
        "import dev.cellrate.tcm.*;",
        "import dev.cellrate.window.*;",
        "import dev.cellrate.warmup.*;",
        "import org.agrona.concurrent.*;",
        "import java.nio.file.Path;",
        "import java.util.concurrent.TimeUnit;",
        "");

    private static final String PREAMBLE = String.join("\n",
        "    interface EventLoop { void schedule(Object item, long atNs); }",
        "    static final class Order { }",
        "    long nowNs, userId, clientIp, accountId, packetBytes, seed, key, next;",
        "    String apiKey;",
        "    Limit limit, tighter;",
        "    ShaperMode mode;",
        "    Shaper shaper;",
        "    NanoClock clock;",
        "    SlotTable table;",
        "    Order order;",
        "    EventLoop eventLoop;",
        "    ReleaseHandler<Order> handler;",
        "    void reply429(long retryAfterNs) { }",
        "    void handle() { }",
        "");

    @Test
    void everyJavaSnippetCompiles() throws Exception
    {
        final Path root = Path.of("").toAbsolutePath().getParent();
        final List<JavaFileObject> sources = new ArrayList<>();
        int outlines = 0;
        int otherModules = 0;
        final Pattern block = Pattern.compile("(<!-- snippet of the \\w+ module[^\\n]*\\n)?```java\\n(.*?)```",
            Pattern.DOTALL);
        for (final String document : DOCUMENTS)
        {
            final Matcher matcher = block.matcher(Files.readString(root.resolve(document)));
            int index = 0;
            while (matcher.find())
            {
                if (null != matcher.group(1))
                {
                    index++;
                    otherModules++;
                    continue;
                }
                if (matcher.group(2).contains("{ ... }"))
                {
                    index++;
                    outlines++;
                    continue;
                }
                final String name = "Snippet" + sources.size();
                sources.add(source(name, document + " #" + index++, matcher.group(2)));
            }
        }
        assertTrue(sources.size() >= 6, "found the snippets: " + sources.size());
        assertTrue(outlines <= 1, "outlines skipped: " + outlines);
        assertTrue(otherModules <= 1, "snippets of other modules skipped: " + otherModules);
        final JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        final DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        final Path out = Files.createTempDirectory("snippets");
        final String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        final boolean compiled = compiler.getTask(null, null, diagnostics,
            List.of("-d", out.toString(), "-cp", classPath, "-proc:none"), null, sources).call();
        final StringBuilder report = new StringBuilder();
        for (final Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics())
        {
            if (Diagnostic.Kind.ERROR == d.getKind())
            {
                report.append(((Snippet)d.getSource()).origin).append(": ").append(d.getMessage(null)).append('\n');
            }
        }
        assertTrue(compiled, report.toString());
    }

    private static Snippet source(final String name, final String origin, final String text)
    {
        final StringBuilder body = new StringBuilder();
        for (final String line : text.split("\n"))
        {
            final String trimmed = line.trim();
            if (trimmed.startsWith("import ") || "...".equals(trimmed))
            {
                continue;
            }
            body.append("        ").append(line.replace("  ...  ", "  ")).append('\n');
        }
        final String code = IMPORTS + "final class " + name + "\n{\n" + PREAMBLE +
            "    void run() throws Exception\n    {\n" + body + "    }\n}\n";
        return new Snippet(name, origin, code);
    }

    private static final class Snippet extends SimpleJavaFileObject
    {
        final String origin;
        final String code;

        Snippet(final String name, final String origin, final String code)
        {
            super(URI.create("string:///" + name + ".java"), Kind.SOURCE);
            this.origin = origin;
            this.code = code;
        }

        @Override
        public CharSequence getCharContent(final boolean ignoreEncodingErrors)
        {
            return code;
        }
    }
}
