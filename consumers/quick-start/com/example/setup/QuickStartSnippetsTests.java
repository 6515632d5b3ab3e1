package com.example.setup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * Keeps this application identical to the README's quick start: each block the README marks with
 * {@code <!-- quick-start:NAME -->} that this application's {@code quick-start.properties} names must appear, line for
 * line, in the file of this application that the properties give for it. Lines are compared without their leading and
 * trailing spaces (a block is indented differently inside a pom), and blank lines are skipped. A README whose snippet
 * drifts from what this application compiles and tests fails here.
 *
 * <p>
 * Every consumer application compiles this folder (build-helper's {@code add-test-source}); it is no part of what an
 * application of a user would have.
 */
class QuickStartSnippetsTests {

    private static final Pattern MARKED_BLOCK = Pattern
        .compile("<!-- quick-start:([a-z-]+) -->\\R```[a-z]*\\R(.*?)\\R```", Pattern.DOTALL);

    @Test
    void everyQuickStartBlockOfTheReadmeIsInThisApplication() throws IOException {
        Map<String, String> files = filesOfBlocks();
        assertThat(files).as("quick-start blocks named in quick-start.properties").isNotEmpty();
        Map<String, String> blocks = quickStartBlocks();
        assertThat(blocks).as("quick-start blocks marked in the README").containsKeys(files.keySet().toArray(String[]::new));
        for (Map.Entry<String, String> file : files.entrySet()) {
            List<String> block = significantLines(blocks.get(file.getKey()));
            List<String> source = significantLines(Files.readString(Path.of(file.getValue())));
            if (Collections.indexOfSubList(source, block) < 0) {
                fail("The README's quick-start block '%s' is not in %s any more. Make them equal again; the block:%n%s",
                        file.getKey(), file.getValue(), String.join("\n", block));
            }
        }
    }

    /** The README's blocks this application is built from, and the file of this application each stands for. */
    private static Map<String, String> filesOfBlocks() throws IOException {
        Properties properties = new Properties();
        try (var reader = Files.newBufferedReader(Path.of("quick-start.properties"))) {
            properties.load(reader);
        }
        Map<String, String> files = new LinkedHashMap<>();
        properties.stringPropertyNames().stream().sorted().forEach((name) -> files.put(name, properties.getProperty(name)));
        return files;
    }

    private static Map<String, String> quickStartBlocks() throws IOException {
        Path readme = Path.of(System.getProperty("quick-start.readme", "../../README.md"));
        Matcher matcher = MARKED_BLOCK.matcher(Files.readString(readme));
        Map<String, String> blocks = new LinkedHashMap<>();
        while (matcher.find()) {
            blocks.put(matcher.group(1), matcher.group(2));
        }
        return blocks;
    }

    private static List<String> significantLines(String text) {
        List<String> lines = new ArrayList<>();
        try (Stream<String> all = text.lines()) {
            all.map(String::strip).filter((line) -> !line.isEmpty()).forEach(lines::add);
        }
        return lines;
    }

}
