"""What the schema says, read by every stage: shapes of annotations, plans of classes, walks
of key paths, and what data means for a type (the text "None", coercion, preparing)."""
