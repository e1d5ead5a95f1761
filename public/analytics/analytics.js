// Picking dates by hand switches the date range to "Custom range", since a
// preset would otherwise win over the dates.
for (const form of document.querySelectorAll('[data-analytics-form]')) {
  const preset = form.querySelector('[data-range-preset]');
  for (const input of form.querySelectorAll('[data-range-date]')) {
    input.addEventListener('change', () => {
      preset.value = 'custom';
    });
  }
}
