package dev.cellrate.rls;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The service uses the engine's exported packages only (those the engine's module-info exports), and none of
 * the slot-level calls a front keeps to itself.
 */
class BoundaryTest
{
    @Test
    void mainSourcesImportOnlyExportedEnginePackages() throws IOException
    {
        final String moduleInfo = Files.readString(Path.of("../engine/src/main/module/module-info.java"));
        final List<String> exported = new ArrayList<>();
        final Matcher exports = Pattern.compile("exports\\s+([\\w.]+)\\s*;").matcher(moduleInfo);
        while (exports.find())
        {
            exported.add(exports.group(1));
        }
        assertTrue(exported.contains("dev.cellrate"), exported.toString());
        final Pattern engineImport = Pattern.compile("^import\\s+(?:static\\s+)?(dev\\.cellrate\\.[\\w.]+)\\.[A-Z]\\w*",
            Pattern.MULTILINE);
        final List<String> violations = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Path.of("src/main/java")))
        {
            for (final Path file : (Iterable<Path>)files.filter(f -> f.toString().endsWith(".java"))::iterator)
            {
                final String source = Files.readString(file);
                final Matcher m = engineImport.matcher(source);
                while (m.find())
                {
                    final String pkg = m.group(1);
                    if (!pkg.startsWith("dev.cellrate.rls") && !pkg.startsWith("dev.cellrate.redis") &&
                        !exported.contains(pkg))
                    {
                        violations.add(file + ": " + pkg);
                    }
                }
                if (source.contains(".table()") || source.contains("CellArray") || source.contains("keyWord("))
                {
                    violations.add(file + ": slot-level call");
                }
            }
        }
        assertEquals(List.of(), violations);
    }
}
