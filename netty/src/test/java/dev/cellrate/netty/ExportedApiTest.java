package dev.cellrate.netty;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The module's compiled classes refer to the engine through its exported packages only (the {@code exports}
 * of the engine's {@code module-info.java}), so they work on the module path as on the class path. The check
 * reads every class name in the class files' constant pools, method descriptors included: a call such as
 * {@code shaper.table()} names the unexported {@code dev/cellrate/table/SlotTable} there even with no import.
 */
final class ExportedApiTest
{
    private static final Pattern EXPORTS = Pattern.compile("^\\s*exports\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
    private static final Pattern CLASS_NAME = Pattern.compile("dev/cellrate/((?:[a-z]\\w*/)*)[A-Z]");

    @Test
    void mainCodeNamesOnlyExportedEnginePackages() throws IOException
    {
        final Path root = Path.of("").toAbsolutePath();
        final Path moduleInfo = root.resolveSibling("engine").resolve("src/main/module/module-info.java");
        final Set<String> exported = new TreeSet<>();
        final Matcher e = EXPORTS.matcher(Files.readString(moduleInfo));
        while (e.find())
        {
            exported.add(e.group(1));
        }
        assertFalse(exported.isEmpty(), "exports read from " + moduleInfo);
        final List<String> violations = new ArrayList<>();
        int files = 0;
        try (Stream<Path> classes = Files.walk(root.resolve("target/classes")))
        {
            for (final Path file : (Iterable<Path>)classes.filter(p -> p.toString().endsWith(".class"))::iterator)
            {
                files++;
                final Matcher m = CLASS_NAME.matcher(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1));
                while (m.find())
                {
                    final String pkg = ("dev/cellrate/" + m.group(1)).replace('/', '.').replaceAll("\\.$", "");
                    if (!pkg.equals("dev.cellrate.netty") && !exported.contains(pkg))
                    {
                        violations.add(file.getFileName() + ": " + pkg);
                    }
                }
            }
        }
        assertFalse(0 == files);
        assertEquals(List.of(), violations, "engine packages that module dev.cellrate does not export " + exported);
    }
}
