// Placeholder: the codec layer lands here.
